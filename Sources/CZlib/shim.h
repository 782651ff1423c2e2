#include <zlib.h>

/// zlib's inflateInit is a macro (it passes the library version and stream size); Swift sees
/// functions only.
static inline int blecap_inflate_init(z_stream *stream) { return inflateInit(stream); }
static inline int blecap_deflate_init(z_stream *stream, int level) { return deflateInit(stream, level); }
