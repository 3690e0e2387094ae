#include <espeak-ng/speak_lib.h>
