#include <errno.h>
#include <sys/epoll.h>
#include <uv.h>

/* Re-registers `fd`, which a uv_poll_t on `loop` already watches for reading, as edge-triggered:
   each write to an eventfd then wakes the loop once, with no read to clear it. libuv registers a
   descriptor under its number (data.fd) and registers it again only when its poll events change.
   0, or -errno. */
static inline int deck_uv_poll_edge_triggered(uv_loop_t *loop, int fd) {
    struct epoll_event event = { .events = EPOLLIN | EPOLLET, .data.fd = fd };
    return epoll_ctl(uv_backend_fd(loop), EPOLL_CTL_MOD, fd, &event) == 0 ? 0 : -errno;
}
