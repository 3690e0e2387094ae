#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

/* AVERROR values are macros Swift cannot import. */
static inline int deck_averror_eof(void) { return AVERROR_EOF; }
static inline int deck_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int deck_averror_eio(void) { return AVERROR(EIO); }
static inline int deck_averror_exit(void) { return AVERROR_EXIT; }
static inline int deck_averror_invalid_data(void) { return AVERROR_INVALIDDATA; }
static inline int deck_averror_http_400(void) { return AVERROR_HTTP_BAD_REQUEST; }
static inline int deck_averror_http_401(void) { return AVERROR_HTTP_UNAUTHORIZED; }
static inline int deck_averror_http_403(void) { return AVERROR_HTTP_FORBIDDEN; }
static inline int deck_averror_http_404(void) { return AVERROR_HTTP_NOT_FOUND; }
static inline int deck_averror_http_4xx(void) { return AVERROR_HTTP_OTHER_4XX; }
