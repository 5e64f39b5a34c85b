"""The server side of an HTTP/2 connection that carries gRPC unary calls (RFC 9113, gRPC
over HTTP/2). Sans-IO: bytes in through ``receive``, finished requests out, bytes to send
out through ``take_output``; the unary front (``server.py`` beside it) owns the sockets.

Frames (RFC 9113) are parsed in place from the received bytes; header blocks go through the
HPACK decoder in hpack.h; responses are written straight into one output buffer. What a
request means is the caller's business: ``receive`` hands out finished requests as
``(stream_id, path, message, authorization, timeout_us)`` (``message`` None when the request
carried none) and ``respond`` answers them.
Every protocol error ends in RST_STREAM (one stream) or GOAWAY (the connection), never in an
exception: the peer is untrusted.
"""
from binascii import b2a_base64

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdint cimport int64_t, uint8_t, uint32_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy, memmove

# service/ is the source folder of mjcore.service: Cython finds the .pxd by that path
from service.front.hpack cimport (hpack_decode_block, hpack_decoder, hpack_decoder_free,
                                  hpack_decoder_init, hpack_strerror)

# frame types
cdef enum:
    DATA = 0x0
    HEADERS = 0x1
    PRIORITY = 0x2
    RST_STREAM = 0x3
    SETTINGS = 0x4
    PUSH_PROMISE = 0x5
    PING = 0x6
    GOAWAY = 0x7
    WINDOW_UPDATE = 0x8
    CONTINUATION = 0x9

# flags
cdef enum:
    END_STREAM = 0x1
    ACK = 0x1
    END_HEADERS = 0x4
    PADDED = 0x8
    PRIORITY_FLAG = 0x20

# error codes
cdef enum:
    NO_ERROR = 0x0
    PROTOCOL_ERROR = 0x1
    FLOW_CONTROL_ERROR = 0x3
    SETTINGS_TIMEOUT = 0x4
    STREAM_CLOSED = 0x5
    FRAME_SIZE_ERROR = 0x6
    REFUSED_STREAM = 0x7
    CANCEL = 0x8
    COMPRESSION_ERROR = 0x9
    ENHANCE_YOUR_CALM = 0xb

# stream states
cdef enum:
    OPEN = 1        # receiving the request
    AWAITING = 2    # request handed out, no answer yet
    SENDING = 3     # answer waiting for flow-control window

# our settings
cdef enum:
    MAX_FRAME = 16384               # the protocol default; we do not raise it
    DEFAULT_WINDOW = 65535          # every window before SETTINGS change it
    MAX_HEADER_BLOCK = 65536
    MAX_HEADER_FRAMES = 64          # HEADERS + CONTINUATION frames of one header block
    HEADER_TABLE = 4096
    MAX_WINDOW = 0x7fffffff
    QUOTED_PATH = 64                # bytes of an unknown :path quoted back
    CREDIT_BATCH = 16384            # released request bytes given back in one WINDOW_UPDATE
    RESET_MEMORY = 256              # reset streams remembered, whose late frames are ignored

# gRPC status codes used here
cdef enum:
    RESOURCE_EXHAUSTED = 8
    UNIMPLEMENTED = 12
    INTERNAL = 13
    INVALID_ARGUMENT = 3
    UNAUTHENTICATED = 16
    DEADLINE_EXCEEDED = 4

# What a request's header block says, gathered by the HPACK decoder's callback.
cdef struct RequestHeaders:
    uint8_t path[256]
    size_t path_len
    uint8_t authorization[8192]
    size_t authorization_len
    uint8_t timeout[16]
    size_t timeout_len
    bint has_path
    bint has_authorization
    bint has_timeout
    bint method_post
    bint grpc_content_type
    bint has_content_type
    bint oversize           # a path longer than its buffer
    bint authorization_oversize
    bint duplicate_authorization
    bint trailers           # the block ends a stream already open: no pseudo-headers
    bint has_method
    bint has_scheme
    bint has_authority
    bint regular_seen       # a regular field came: no pseudo-header may follow
    int64_t content_length  # -1: none
    const char *malformed   # why the block breaks RFC 9113 section 8.2/8.3, or NULL


# A growable byte buffer.
cdef struct Buffer:
    uint8_t *data
    size_t length
    size_t capacity


cdef bytes PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# ":status: 200" (static index 8), "content-type: application/grpc" (literal, name index 31)
cdef bytes RESPONSE_HEADERS = b"\x88\x0f\x10\x10application/grpc"
cdef bytes OK_TRAILERS = b"\x00\x0bgrpc-status\x010"


cdef int buf_reserve(Buffer *buf, size_t extra) except -1:
    cdef size_t need = buf.length + extra
    cdef size_t capacity
    cdef uint8_t *grown
    if need <= buf.capacity:
        return 0
    capacity = buf.capacity * 2 if buf.capacity else 4096
    while capacity < need:
        capacity *= 2
    grown = <uint8_t *>realloc(buf.data, capacity)
    if grown == NULL:
        raise MemoryError()
    buf.data = grown
    buf.capacity = capacity
    return 0


cdef int buf_append(Buffer *buf, const uint8_t *data, size_t length) except -1:
    if length == 0:
        return 0
    buf_reserve(buf, length)
    memcpy(buf.data + buf.length, data, length)
    buf.length += length
    return 0


cdef inline uint32_t be32(const uint8_t *p) noexcept nogil:
    return (<uint32_t>p[0] << 24) | (<uint32_t>p[1] << 16) | (<uint32_t>p[2] << 8) | p[3]


cdef inline void put32(uint8_t *p, uint32_t v) noexcept nogil:
    p[0] = (v >> 24) & 0xff
    p[1] = (v >> 16) & 0xff
    p[2] = (v >> 8) & 0xff
    p[3] = v & 0xff


cdef inline bint named(const uint8_t *name, size_t length, const char *want,
                       size_t want_length) noexcept nogil:
    return length == want_length and memcmp(name, want, length) == 0


cdef const char *field_problem(const uint8_t *name, size_t name_len, const uint8_t *value,
                               size_t value_len) noexcept nogil:
    """RFC 9113 section 8.2.1: what makes this field malformed, or NULL."""
    cdef size_t i
    cdef uint8_t c
    if name_len == 0:
        return "an empty field name"
    for i in range(1 if name[0] == 58 else 0, name_len):   # 58 ':' starts a pseudo-header
        c = name[i]
        if 65 <= c <= 90:
            return "an upper-case field name"
        if c <= 32 or c == 58 or c >= 127:
            return "a field name with a forbidden character"
    for i in range(value_len):
        c = value[i]
        if c == 0 or c == 10 or c == 13:
            return "a field value with NUL, CR or LF"
    if value_len and (value[0] == 32 or value[0] == 9 or value[value_len - 1] == 32
                      or value[value_len - 1] == 9):
        return "a field value with leading or trailing whitespace"
    return NULL


cdef int64_t parse_content_length(const uint8_t *text, size_t length) noexcept nogil:
    cdef int64_t value = 0
    cdef size_t i
    if length == 0 or length > 15:
        return -2
    for i in range(length):
        if text[i] < 48 or text[i] > 57:
            return -2
        value = value * 10 + (text[i] - 48)
    return value


cdef void collect_header(void *ctx, const uint8_t *name, size_t name_len,
                         const uint8_t *value, size_t value_len) noexcept nogil:
    """HPACK callback: keep the header fields a unary call needs and check the block against
    RFC 9113 sections 8.2 and 8.3 (the first problem found is kept)."""
    cdef RequestHeaders *h = <RequestHeaders *>ctx
    cdef const char *problem
    if h.malformed != NULL:
        return
    problem = field_problem(name, name_len, value, value_len)
    if problem != NULL:
        h.malformed = problem
        return
    if name[0] == 58:
        if h.trailers:
            h.malformed = "a pseudo-header in trailers"
            return
        if h.regular_seen:
            h.malformed = "a pseudo-header after a regular field"
            return
        if named(name, name_len, b":path", 5):
            if h.has_path:
                h.malformed = "a second :path"
                return
            if value_len == 0:
                h.malformed = "an empty :path"
                return
        elif named(name, name_len, b":method", 7):
            if h.has_method:
                h.malformed = "a second :method"
                return
            h.has_method = True
        elif named(name, name_len, b":scheme", 7):
            if h.has_scheme:
                h.malformed = "a second :scheme"
                return
            h.has_scheme = True
        elif named(name, name_len, b":authority", 10):
            if h.has_authority:
                h.malformed = "a second :authority"
                return
            h.has_authority = True
        else:
            h.malformed = "an unknown or response pseudo-header"
            return
    else:
        h.regular_seen = True
        if (named(name, name_len, b"connection", 10) or named(name, name_len, b"keep-alive", 10)
                or named(name, name_len, b"proxy-connection", 16)
                or named(name, name_len, b"transfer-encoding", 17)
                or named(name, name_len, b"upgrade", 7)):
            h.malformed = "a connection-specific field"
            return
        if named(name, name_len, b"te", 2) and not (
                value_len == 8 and memcmp(value, b"trailers", 8) == 0):
            h.malformed = "te other than trailers"
            return
        if named(name, name_len, b"content-length", 14):
            if h.content_length != -1:
                h.malformed = "a second content-length"
                return
            h.content_length = parse_content_length(value, value_len)
            if h.content_length < 0:
                h.malformed = "a content-length that is not a number"
                return
    if named(name, name_len, b":path", 5):
        h.has_path = True
        if value_len > sizeof(h.path):
            h.oversize = True
        else:
            memcpy(h.path, value, value_len)
            h.path_len = value_len
    elif named(name, name_len, b":method", 7):
        h.method_post = value_len == 4 and memcmp(value, b"POST", 4) == 0
    elif named(name, name_len, b"content-type", 12):
        if h.has_content_type:
            h.malformed = "a second content-type"
            return
        h.has_content_type = True
        # application/grpc, application/grpc+proto, application/grpc;charset=...
        h.grpc_content_type = (value_len >= 16 and memcmp(value, b"application/grpc", 16) == 0
                               and (value_len == 16 or value[16] == 43 or value[16] == 59))
    elif named(name, name_len, b"authorization", 13):
        if h.has_authorization:
            h.duplicate_authorization = True
        h.has_authorization = True
        if value_len > sizeof(h.authorization):
            h.authorization_oversize = True
        else:
            memcpy(h.authorization, value, value_len)
            h.authorization_len = value_len
    elif named(name, name_len, b"grpc-timeout", 12):
        if h.has_timeout:
            h.malformed = "a second grpc-timeout"
            return
        h.has_timeout = True
        if value_len > sizeof(h.timeout):
            h.timeout_len = 0   # malformed: longer than 8 digits and a unit
        else:
            memcpy(h.timeout, value, value_len)
            h.timeout_len = value_len


cdef inline void clear_scan(RequestHeaders *h) noexcept nogil:
    """Everything but the buffers, which are read only up to their lengths."""
    h.path_len = h.authorization_len = h.timeout_len = 0
    h.has_path = h.has_authorization = h.has_timeout = False
    h.method_post = h.grpc_content_type = h.has_content_type = False
    h.oversize = h.authorization_oversize = h.duplicate_authorization = False
    h.trailers = h.has_method = h.has_scheme = h.has_authority = h.regular_seen = False
    h.content_length = -1
    h.malformed = NULL


cdef int64_t parse_timeout(const uint8_t *text, size_t length) noexcept nogil:
    """grpc-timeout ("1-8 digits" + H/M/S/m/u/n) in microseconds; -2 when malformed."""
    cdef int64_t value = 0
    cdef size_t i
    cdef uint8_t unit
    if length < 2 or length > 9:
        return -2
    for i in range(length - 1):
        if text[i] < 48 or text[i] > 57:
            return -2
        value = value * 10 + (text[i] - 48)
    unit = text[length - 1]
    if unit == 72:
        return value * <int64_t>3600000000
    if unit == 77:
        return value * <int64_t>60000000
    if unit == 83:
        return value * <int64_t>1000000
    if unit == 109:
        return value * 1000
    if unit == 117:
        return value
    if unit == 110:
        return (value + 999) // 1000
    return -2


def hpack_literal(name: bytes, value: bytes) -> bytes:
    """One header field as an HPACK literal without indexing, new name, no Huffman."""
    return b"\x00" + _hpack_int(len(name), 7) + name + _hpack_int(len(value), 7) + value


def _hpack_int(value: int, prefix: int) -> bytes:
    limit = (1 << prefix) - 1
    if value < limit:
        return bytes((value,))
    out = bytearray((limit,))
    value -= limit
    while value >= 128:
        out.append((value & 0x7f) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def percent_encode(message: str) -> bytes:
    """grpc-message encoding: UTF-8, with '%' and bytes outside 0x20-0x7e as %XX."""
    out = bytearray()
    for byte in message.encode("utf-8"):
        if 0x20 <= byte <= 0x7e and byte != 0x25:
            out.append(byte)
        else:
            out += b"%%%02X" % byte
    return bytes(out)


cdef class Stream:
    cdef uint32_t stream_id
    cdef int state
    cdef bytearray body
    cdef bytes path
    cdef object authorization       # bytes or None
    cdef int64_t timeout_us         # -1: no deadline
    cdef int64_t send_window
    cdef int64_t received           # request bytes (DATA payloads) counted against its window
    cdef int64_t content_length     # -1: not given
    cdef double opened              # ``now`` of the receive that opened it
    cdef bytes pending              # response DATA payload not yet sent (flow control)
    cdef Py_ssize_t pending_offset
    cdef bytes trailers             # header block sent after ``pending``


cdef class ServerConnection:
    """One HTTP/2 connection's server state. ``paths``: the :path values served; any other
    method is answered UNIMPLEMENTED. ``max_message``: the largest request message in bytes
    (RESOURCE_EXHAUSTED above it)."""

    cdef hpack_decoder decoder
    cdef bint decoder_ready
    cdef Buffer inbox               # received bytes not yet parsed
    cdef Buffer outbox              # bytes to send
    cdef Buffer header_block        # HEADERS + CONTINUATION fragments being joined
    cdef uint32_t header_stream     # stream of ``header_block``; 0 when none is open
    cdef bint header_end_stream
    cdef bint preface_seen
    cdef bint settings_seen
    cdef readonly bint closed       # GOAWAY sent: send the output, then close the socket
    cdef readonly bint going_away   # graceful: no new streams accepted
    cdef readonly str error         # why the connection failed, or None
    cdef readonly int64_t buffered  # request body bytes held for streams not yet finished
    cdef readonly int64_t strikes   # resets, error-only streams and control frames received
    cdef readonly int64_t data_sent # answer bytes (DATA payloads) written so far
    cdef int header_frames          # frames of the open header block
    cdef bint self_dependent        # the open header block's stream depends on itself
    cdef set reset_ids              # streams we reset lately (at most RESET_MEMORY)
    cdef double now
    cdef uint32_t last_stream_id
    cdef int64_t send_window
    cdef int64_t recv_window
    cdef int64_t recv_unacked
    cdef int64_t connection_window
    cdef int64_t stream_window
    cdef Py_ssize_t max_streams
    cdef uint32_t peer_max_frame
    cdef int64_t peer_initial_window
    cdef Py_ssize_t max_message
    cdef dict streams               # stream id -> Stream, for every stream not yet finished
    cdef list blocked               # streams whose response waits for a window
    cdef list ready                 # finished requests of the current ``receive``
    cdef object paths               # the served methods' :path values (a set of bytes)
    cdef object authorize           # authorization value or None -> refusal message or None
    cdef object open_paths          # paths served without ``authorize`` (health)
    cdef RequestHeaders scan

    def __cinit__(self, paths, Py_ssize_t max_message=4 * 1024 * 1024,
                  Py_ssize_t max_streams=256, int64_t connection_window=1 << 20,
                  authorize=None, open_paths=()):
        self.decoder_ready = False
        if hpack_decoder_init(&self.decoder, HEADER_TABLE) != 0:
            raise MemoryError()
        self.decoder_ready = True
        self.paths = frozenset(paths)
        self.authorize = authorize
        self.open_paths = frozenset(open_paths)
        self.max_message = max_message
        self.max_streams = max(1, max_streams)
        # the window is the buffer budget: a stream never needs more than one message (plus
        # one byte, which shows a larger one as such), and the connection gets back only the
        # bytes it no longer holds
        self.stream_window = min(<int64_t>max_message + 6, <int64_t>MAX_WINDOW)
        # at least one whole message beside the credit not yet given back (``_credit``), or a
        # request larger than the budget could never finish
        self.connection_window = min(max(connection_window, self.stream_window + CREDIT_BATCH,
                                         <int64_t>DEFAULT_WINDOW), <int64_t>MAX_WINDOW)
        self.streams = {}
        self.reset_ids = set()
        self.blocked = []
        self.ready = []
        self.send_window = DEFAULT_WINDOW
        self.recv_window = self.connection_window
        self.peer_max_frame = 16384
        self.peer_initial_window = DEFAULT_WINDOW
        self.error = None
        # server preface: SETTINGS, then the connection window raised to its budget
        cdef uint8_t settings[18]
        settings[0] = 0; settings[1] = 0x3          # MAX_CONCURRENT_STREAMS
        put32(settings + 2, <uint32_t>self.max_streams)
        settings[6] = 0; settings[7] = 0x4          # INITIAL_WINDOW_SIZE
        put32(settings + 8, <uint32_t>self.stream_window)
        settings[12] = 0; settings[13] = 0x6        # MAX_HEADER_LIST_SIZE
        put32(settings + 14, MAX_HEADER_BLOCK)
        self._write_frame_header(18, SETTINGS, 0, 0)
        buf_append(&self.outbox, settings, 18)
        cdef uint8_t increment[4]
        if self.connection_window > DEFAULT_WINDOW:
            put32(increment, <uint32_t>(self.connection_window - DEFAULT_WINDOW))
            self._write_frame_header(4, WINDOW_UPDATE, 0, 0)
            buf_append(&self.outbox, increment, 4)

    def __dealloc__(self):
        if self.decoder_ready:
            hpack_decoder_free(&self.decoder)
        free(self.inbox.data)
        free(self.outbox.data)
        free(self.header_block.data)

    # -- Python surface -------------------------------------------------------------------------

    def receive(self, data, double now=0.0) -> list:
        """Feed received bytes (``now``: a monotonic clock, for ``expire``); returns the
        requests they completed, in order."""
        cdef const uint8_t[::1] view = data
        cdef size_t length = view.shape[0]
        cdef size_t used
        self.now = now
        self.ready = []
        if self.closed or length == 0:
            return self.ready
        if self.inbox.length == 0:
            used = self._parse(&view[0], length)
            if used < length and not self.closed:
                buf_append(&self.inbox, &view[used], length - used)
        else:
            buf_append(&self.inbox, &view[0], length)
            used = self._parse(self.inbox.data, self.inbox.length)
            if used:
                memmove(self.inbox.data, self.inbox.data + used, self.inbox.length - used)
                self.inbox.length -= used
        return self.ready

    def respond(self, uint32_t stream_id, bytes message, int status=0, str details=None,
                bytes status_details=None) -> bool:
        """Answer a request: ``message`` (serialized) with status 0, or an error ``status``
        with its message ``details`` and optional ``grpc-status-details-bin`` payload.
        False when the stream is gone (reset by the client)."""
        cdef Stream stream = self.streams.get(stream_id)
        cdef Py_ssize_t n
        cdef uint8_t prefix[5]
        if stream is None or stream.state != AWAITING or self.closed:
            return False
        if status != 0 or message is None:
            del self.streams[stream_id]
            self._trailers_only(stream_id, status if status else INTERNAL,
                                details, status_details)
            return True
        self._write_headers(stream_id, <const uint8_t *>PyBytes_AS_STRING(RESPONSE_HEADERS),
                            PyBytes_GET_SIZE(RESPONSE_HEADERS), False)
        n = PyBytes_GET_SIZE(message)
        prefix[0] = 0
        put32(prefix + 1, <uint32_t>n)
        if (n + 5 <= self.send_window and n + 5 <= stream.send_window
                and n + 5 <= self.peer_max_frame):
            self._write_frame_header(n + 5, DATA, 0, stream_id)
            self.data_sent += n + 5
            buf_append(&self.outbox, prefix, 5)
            buf_append(&self.outbox, <const uint8_t *>PyBytes_AS_STRING(message), n)
            self.send_window -= n + 5
            stream.send_window -= n + 5
            stream.trailers = OK_TRAILERS
            self._finish(stream)
            return True
        stream.pending = PyBytes_FromStringAndSize(<char *>prefix, 5) + message
        stream.pending_offset = 0
        stream.trailers = OK_TRAILERS
        stream.state = SENDING
        self._send_data(stream)
        if stream.state == SENDING:
            self.blocked.append(stream)
        return True

    def take_output(self) -> bytes:
        """The bytes to send, once."""
        out = PyBytes_FromStringAndSize(<char *>self.outbox.data, self.outbox.length)
        self.outbox.length = 0
        return out

    @property
    def has_output(self) -> bool:
        return self.outbox.length > 0

    @property
    def active_streams(self) -> int:
        """Streams opened and not yet fully answered."""
        return len(self.streams)

    @property
    def blocked_streams(self) -> int:
        """Answers waiting for the peer to open its flow-control window."""
        return len(self.blocked)

    @property
    def header_pending(self) -> bool:
        """A header block is open (HEADERS came, its END_HEADERS not yet)."""
        return self.header_stream != 0

    @property
    def preface_done(self) -> bool:
        """The client preface and its first SETTINGS frame arrived."""
        return self.settings_seen

    def expire(self, double before) -> int:
        """Streams opened before ``before`` whose request is still unfinished: answered
        DEADLINE_EXCEEDED and reset, their bytes released. Returns how many."""
        cdef Stream stream
        cdef list late = [s for s in self.streams.values()
                          if (<Stream>s).state == OPEN and (<Stream>s).opened < before]
        for stream in late:
            self._trailers_only(stream.stream_id, DEADLINE_EXCEEDED,
                                "the request did not arrive in time", None)
            self._reset(stream.stream_id, CANCEL)
        return len(late)

    def shed(self) -> int:
        """Refuse (RST_STREAM REFUSED_STREAM) every unfinished request holding body bytes;
        returns the bytes released. For a process over its buffer budget."""
        cdef Stream stream
        cdef int64_t before = self.buffered
        cdef list holding = [s for s in self.streams.values()
                             if (<Stream>s).state == OPEN and (<Stream>s).body]
        for stream in holding:
            self._reset(stream.stream_id, REFUSED_STREAM)
        return before - self.buffered

    def ping(self) -> None:
        """Send a keepalive PING (any answer from the peer shows it is alive)."""
        if self.closed:
            return
        self._write_frame_header(8, PING, 0, 0)
        buf_append(&self.outbox, <const uint8_t *>b"mjcore\x00\x00", 8)

    def calm(self, str why) -> None:
        """End the connection with GOAWAY ENHANCE_YOUR_CALM."""
        self._fail(ENHANCE_YOUR_CALM, why)

    def goaway(self) -> None:
        """Graceful close: no new streams; those already received are still answered."""
        cdef uint8_t payload[8]
        if self.closed or self.going_away:
            return
        self.going_away = True
        put32(payload, self.last_stream_id)
        put32(payload + 4, NO_ERROR)
        self._write_frame_header(8, GOAWAY, 0, 0)
        buf_append(&self.outbox, payload, 8)

    # -- frames in ------------------------------------------------------------------------------

    cdef int _parse(self, const uint8_t *data, size_t length) except -1:
        """Handle every complete frame in ``data``; returns the bytes consumed."""
        cdef size_t pos = 0
        cdef size_t frame_length
        cdef size_t have
        if not self.preface_seen:
            have = min(length, <size_t>24)
            if memcmp(data, PyBytes_AS_STRING(PREFACE), have) != 0:
                self._fail(PROTOCOL_ERROR, "not an HTTP/2 client connection preface")
                return length
            if length < 24:
                return 0
            self.preface_seen = True
            pos = 24
        while not self.closed and length - pos >= 9:
            frame_length = (<size_t>data[pos] << 16) | (<size_t>data[pos + 1] << 8) | data[pos + 2]
            if frame_length > MAX_FRAME:
                self._fail(FRAME_SIZE_ERROR, f"frame of {frame_length} bytes")
                return length
            if length - pos - 9 < frame_length:
                break
            self._frame(data[pos + 3], data[pos + 4], be32(data + pos + 5) & 0x7fffffff,
                        data + pos + 9, frame_length)
            pos += 9 + frame_length
        return length if self.closed else pos

    cdef int _frame(self, uint8_t kind, uint8_t flags, uint32_t sid,
                    const uint8_t *payload, size_t length) except -1:
        cdef Stream stream
        if not self.settings_seen and kind != SETTINGS:
            return self._fail(PROTOCOL_ERROR, "the first frame must be SETTINGS")
        if self.header_stream != 0 and kind != CONTINUATION:
            return self._fail(PROTOCOL_ERROR, "header block interrupted")
        if kind == DATA:
            return self._on_data(flags, sid, payload, length)
        if kind == HEADERS:
            return self._on_headers(flags, sid, payload, length)
        if kind == CONTINUATION:
            return self._on_continuation(flags, sid, payload, length)
        if kind == SETTINGS:
            return self._on_settings(flags, sid, payload, length)
        if kind == WINDOW_UPDATE:
            return self._on_window_update(sid, payload, length)
        if kind == PING:
            if sid != 0:
                return self._fail(PROTOCOL_ERROR, "PING on a stream")
            if length != 8:
                return self._fail(FRAME_SIZE_ERROR, "PING payload is not 8 bytes")
            if not flags & ACK:
                self._write_frame_header(8, PING, ACK, 0)
                buf_append(&self.outbox, payload, 8)
            return 0
        if kind == RST_STREAM:
            if sid == 0:
                return self._fail(PROTOCOL_ERROR, "RST_STREAM on stream 0")
            if length != 4:
                return self._fail(FRAME_SIZE_ERROR, "RST_STREAM payload is not 4 bytes")
            if sid > self.last_stream_id:
                return self._fail(PROTOCOL_ERROR, "RST_STREAM on an idle stream")
            self.strikes += 1
            stream = self.streams.pop(sid, None)
            if stream is not None:
                self._release(stream)
                if stream.state == SENDING:
                    self.blocked.remove(stream)
            return 0
        if kind == PRIORITY:
            self.strikes += 1
            if sid == 0:
                return self._fail(PROTOCOL_ERROR, "PRIORITY on stream 0")
            if length != 5 and sid in self.streams:   # never RST_STREAM an idle stream
                return self._reset(sid, FRAME_SIZE_ERROR)
            if length == 5 and be32(payload) & 0x7fffffff == sid:
                return self._reset(sid, PROTOCOL_ERROR)   # a stream cannot depend on itself
            return 0
        if kind == GOAWAY:
            if sid != 0:
                return self._fail(PROTOCOL_ERROR, "GOAWAY on a stream")
            if length < 8:
                return self._fail(FRAME_SIZE_ERROR, "GOAWAY shorter than 8 bytes")
            return 0   # the client opens no more streams; those open are still answered
        if kind == PUSH_PROMISE:
            return self._fail(PROTOCOL_ERROR, "PUSH_PROMISE from a client")
        self.strikes += 1
        return 0       # unknown frame types are ignored

    cdef int _unpad(self, const uint8_t **payload, size_t *length, str kind) except -1:
        """Drop a PADDED frame's pad length and padding; 1 (connection failed) when they do
        not fit the payload."""
        cdef size_t pad
        if length[0] < 1:
            self._fail(FRAME_SIZE_ERROR, f"padded {kind} without pad length")
            return 1
        pad = payload[0][0]
        payload[0] += 1
        length[0] -= 1
        if pad > length[0]:
            self._fail(PROTOCOL_ERROR, f"{kind} padding exceeds the payload")
            return 1
        length[0] -= pad
        return 0

    cdef int _on_headers(self, uint8_t flags, uint32_t sid, const uint8_t *payload,
                         size_t length) except -1:
        if sid == 0:
            return self._fail(PROTOCOL_ERROR, "HEADERS on stream 0")
        if flags & PADDED and self._unpad(&payload, &length, "HEADERS"):
            return 0
        self.self_dependent = False
        if flags & PRIORITY_FLAG:
            if length < 5:
                return self._fail(FRAME_SIZE_ERROR, "HEADERS priority truncated")
            self.self_dependent = be32(payload) & 0x7fffffff == sid
            payload += 5
            length -= 5
        if flags & END_HEADERS:
            return self._header_block(sid, flags & END_STREAM, payload, length)
        self.header_frames = 1
        self.header_block.length = 0
        buf_append(&self.header_block, payload, length)
        self.header_stream = sid
        self.header_end_stream = flags & END_STREAM
        return 0

    cdef int _on_continuation(self, uint8_t flags, uint32_t sid, const uint8_t *payload,
                              size_t length) except -1:
        if self.header_stream == 0 or sid != self.header_stream:
            return self._fail(PROTOCOL_ERROR, "CONTINUATION without its HEADERS")
        if self.header_block.length + length > MAX_HEADER_BLOCK:
            return self._fail(ENHANCE_YOUR_CALM, "header block larger than 64 KiB")
        self.header_frames += 1
        if self.header_frames > MAX_HEADER_FRAMES:
            return self._fail(ENHANCE_YOUR_CALM, f"header block in more than "
                                                 f"{MAX_HEADER_FRAMES} frames")
        buf_append(&self.header_block, payload, length)
        if flags & END_HEADERS:
            self.header_stream = 0
            self._header_block(sid, self.header_end_stream, self.header_block.data,
                               self.header_block.length)
            self.header_block.length = 0
        return 0

    cdef int _header_block(self, uint32_t sid, bint end_stream, const uint8_t *block,
                           size_t length) except -1:
        cdef int rc
        cdef Stream stream = self.streams.get(sid)
        clear_scan(&self.scan)
        self.scan.trailers = stream is not None
        # always decoded, even for streams we ignore: the dynamic table must stay in step
        rc = hpack_decode_block(&self.decoder, block, length, collect_header, &self.scan)
        if rc < 0:
            return self._fail(COMPRESSION_ERROR,
                              "HPACK: " + hpack_strerror(rc).decode("ascii", "replace"))
        if stream is not None:
            if stream.state != OPEN:
                return self._reset(sid, STREAM_CLOSED)
            if not end_stream or self.scan.malformed != NULL:
                self.strikes += 1
                return self._reset(sid, PROTOCOL_ERROR)   # trailers must end the stream
            return self._request_done(stream)
        if sid <= self.last_stream_id:
            # a stream we answered or reset, or one skipped: no new stream can have this id
            return self._fail(PROTOCOL_ERROR, "HEADERS on a closed stream")
        if sid % 2 == 0:
            return self._fail(PROTOCOL_ERROR, "even stream id from a client")
        return self._new_stream(sid, end_stream)

    cdef int _new_stream(self, uint32_t sid, bint end_stream) except -1:
        cdef RequestHeaders *h = &self.scan
        cdef Stream stream
        cdef bytes path
        self.last_stream_id = sid
        if self.going_away or len(self.streams) >= self.max_streams:
            self.strikes += 1
            return self._reset(sid, REFUSED_STREAM)
        if (h.malformed != NULL or not h.has_path or not h.has_method or not h.has_scheme
                or not h.method_post or self.self_dependent):
            self.strikes += 1
            return self._reset(sid, PROTOCOL_ERROR)
        if not h.grpc_content_type or h.duplicate_authorization:
            self.strikes += 1
        if h.duplicate_authorization:
            self._trailers_only(sid, UNAUTHENTICATED, "duplicate authorization header", None)
            if not end_stream:
                self._reset(sid, NO_ERROR)
            return 0
        if not h.grpc_content_type:
            # not gRPC: HTTP 415, as the gRPC spec asks (":status" name index 8, "415")
            self._write_headers(sid, <const uint8_t *>b"\x08\x03415", 5, True)
            if not end_stream:
                self._reset(sid, NO_ERROR)
            return 0
        path = PyBytes_FromStringAndSize(<char *>h.path, h.path_len)
        if h.oversize or h.authorization_oversize or path not in self.paths:
            self.strikes += 1
            if h.oversize:
                self._trailers_only(sid, UNIMPLEMENTED, "the :path is too long for any method",
                                    None)
            elif h.authorization_oversize:
                self._trailers_only(sid, UNAUTHENTICATED,
                                    f"authorization longer than {sizeof(h.authorization)} "
                                    "bytes", None)
            else:
                self._trailers_only(sid, UNIMPLEMENTED,
                                    f"method {path[:QUOTED_PATH].decode('utf-8', 'replace')}"
                                    f"{'...' if len(path) > QUOTED_PATH else ''} is not "
                                    "served on this port", None)
            if not end_stream:
                self._reset(sid, NO_ERROR)
            return 0
        if self.authorize is not None and path not in self.open_paths:
            # refused from the headers, before any of the body is buffered
            refusal = self.authorize(PyBytes_FromStringAndSize(<char *>h.authorization,
                                                               h.authorization_len)
                                     if h.has_authorization else None)
            if refusal is not None:
                self.strikes += 1
                self._trailers_only(sid, UNAUTHENTICATED, refusal, None)
                if not end_stream:
                    self._reset(sid, NO_ERROR)
                return 0
        stream = Stream()
        stream.stream_id = sid
        stream.state = OPEN
        stream.body = bytearray()
        stream.path = path
        stream.authorization = (PyBytes_FromStringAndSize(<char *>h.authorization,
                                                         h.authorization_len)
                                if h.has_authorization else None)
        stream.timeout_us = (parse_timeout(h.timeout, h.timeout_len) if h.has_timeout else -1)
        stream.send_window = self.peer_initial_window
        stream.content_length = h.content_length
        stream.opened = self.now
        if stream.timeout_us == -2:
            self.strikes += 1
            self._trailers_only(sid, INVALID_ARGUMENT, "malformed grpc-timeout header", None)
            if not end_stream:
                self._reset(sid, NO_ERROR)
            return 0
        self.streams[sid] = stream
        if end_stream:
            return self._request_done(stream)
        return 0

    cdef int _on_data(self, uint8_t flags, uint32_t sid, const uint8_t *payload,
                      size_t length) except -1:
        cdef Stream stream
        cdef size_t frame_length = length
        if sid == 0:
            return self._fail(PROTOCOL_ERROR, "DATA on stream 0")
        if <int64_t>length > self.recv_window:
            return self._fail(FLOW_CONTROL_ERROR, "DATA beyond the connection window")
        self.recv_window -= length
        if flags & PADDED and self._unpad(&payload, &length, "DATA"):
            return 0
        stream = self.streams.get(sid)
        if stream is None:
            self._credit(frame_length)
            if sid > self.last_stream_id:
                return self._fail(PROTOCOL_ERROR, "DATA on an idle stream")
            if sid in self.reset_ids:
                return 0   # frames after our RST_STREAM are ignored (RFC 9113 section 5.1)
            self.strikes += 1
            return self._reset(sid, STREAM_CLOSED)   # answered, or reset by the client
        if stream.state != OPEN:
            self._credit(frame_length)
            return self._reset(sid, STREAM_CLOSED)
        if stream.received + <int64_t>frame_length > max(self.stream_window,
                                                           <int64_t>DEFAULT_WINDOW):
            self._credit(frame_length)
            self.strikes += 1
            return self._reset(sid, FLOW_CONTROL_ERROR)
        stream.received += frame_length
        self._credit(frame_length - length)   # the padding is not kept
        if length == 0 and not flags & END_STREAM:
            self.strikes += 1
        if <Py_ssize_t>(len(stream.body) + length) > self.max_message + 5:
            self._credit(length)
            self._release(stream)
            del self.streams[sid]
            self.strikes += 1
            self._trailers_only(sid, RESOURCE_EXHAUSTED,
                                f"request message larger than {self.max_message} bytes", None)
            if not flags & END_STREAM:
                self._reset(sid, NO_ERROR)
            return 0
        stream.body += (<const uint8_t *>payload)[:length]
        self.buffered += length
        if stream.content_length >= 0 and len(stream.body) > stream.content_length:
            self.strikes += 1
            return self._reset(sid, PROTOCOL_ERROR)   # more DATA than content-length said
        if flags & END_STREAM:
            return self._request_done(stream)
        return 0

    cdef int _credit(self, int64_t n) except -1:
        """Bytes the connection no longer holds: given back to the peer's window, in batches."""
        cdef uint8_t increment[4]
        if n <= 0:
            return 0
        self.recv_unacked += n
        if self.recv_unacked >= CREDIT_BATCH:
            put32(increment, <uint32_t>self.recv_unacked)
            self._write_frame_header(4, WINDOW_UPDATE, 0, 0)
            buf_append(&self.outbox, increment, 4)
            self.recv_window += self.recv_unacked
            self.recv_unacked = 0
        return 0

    cdef int _release(self, Stream stream) except -1:
        """A stream stops holding its request body."""
        cdef Py_ssize_t n
        if stream.body is None:
            return 0
        n = len(stream.body)
        stream.body = None
        self.buffered -= n
        return self._credit(n)

    cdef int _on_settings(self, uint8_t flags, uint32_t sid, const uint8_t *payload,
                          size_t length) except -1:
        cdef size_t i
        cdef uint32_t key
        cdef uint32_t value
        cdef int64_t delta
        cdef Stream stream
        if sid != 0:
            return self._fail(PROTOCOL_ERROR, "SETTINGS on a stream")
        if flags & ACK:
            if length != 0:
                return self._fail(FRAME_SIZE_ERROR, "SETTINGS ACK with a payload")
            return 0
        if length % 6:
            return self._fail(FRAME_SIZE_ERROR, "SETTINGS payload not a multiple of 6")
        self.strikes += 1
        cdef int64_t initial_window = -1
        for i in range(0, length, 6):
            key = (<uint32_t>payload[i] << 8) | payload[i + 1]
            value = be32(payload + i + 2)
            if key == 0x2 and value > 1:
                return self._fail(PROTOCOL_ERROR, "ENABLE_PUSH not 0 or 1")
            if key == 0x4:
                if value > MAX_WINDOW:
                    return self._fail(FLOW_CONTROL_ERROR, "INITIAL_WINDOW_SIZE too large")
                initial_window = value
            if key == 0x5:
                if value < 16384 or value > 16777215:
                    return self._fail(PROTOCOL_ERROR, "MAX_FRAME_SIZE out of range")
                self.peer_max_frame = value
        if initial_window >= 0:
            # applied once per frame, so a frame of many entries costs one pass over the streams
            delta = initial_window - self.peer_initial_window
            for stream in self.streams.values():
                stream.send_window += delta
                if stream.send_window > MAX_WINDOW:
                    return self._fail(FLOW_CONTROL_ERROR, "stream window overflow")
            self.peer_initial_window = initial_window
        self.settings_seen = True
        self._write_frame_header(0, SETTINGS, ACK, 0)
        return self._flush_blocked()

    cdef int _on_window_update(self, uint32_t sid, const uint8_t *payload,
                               size_t length) except -1:
        cdef uint32_t increment
        cdef Stream stream
        if length != 4:
            return self._fail(FRAME_SIZE_ERROR, "WINDOW_UPDATE payload is not 4 bytes")
        increment = be32(payload) & 0x7fffffff
        if sid == 0:
            if increment == 0:
                return self._fail(PROTOCOL_ERROR, "WINDOW_UPDATE of 0")
            self.send_window += increment
            if self.send_window > MAX_WINDOW:
                return self._fail(FLOW_CONTROL_ERROR, "connection window overflow")
        else:
            stream = self.streams.get(sid)
            if stream is None:
                if sid > self.last_stream_id:
                    return self._fail(PROTOCOL_ERROR, "WINDOW_UPDATE on an idle stream")
                return 0
            if increment == 0:
                return self._reset(sid, PROTOCOL_ERROR)
            stream.send_window += increment
            if stream.send_window > MAX_WINDOW:
                return self._reset(sid, FLOW_CONTROL_ERROR)
        return self._flush_blocked()

    # -- requests and answers -------------------------------------------------------------------

    cdef int _request_done(self, Stream stream) except -1:
        """The client ended the stream: check the gRPC framing and hand the request out."""
        cdef bytearray body = stream.body
        cdef Py_ssize_t n = len(body)
        cdef uint32_t sid = stream.stream_id
        cdef str problem = None
        cdef int status = INVALID_ARGUMENT   # bad input is never INTERNAL
        if n < 5:
            problem = "the request carries no message"
        elif body[0] == 1:
            status = UNIMPLEMENTED
            problem = "compressed messages are not supported (grpc-accept-encoding: identity)"
        elif body[0] != 0:
            problem = f"bad message flag {body[0]}"
        elif (<uint32_t>body[1] << 24 | <uint32_t>body[2] << 16 | <uint32_t>body[3] << 8
              | <uint32_t>body[4]) != n - 5:
            problem = "a unary request must carry exactly one whole message"
        if stream.content_length >= 0 and stream.content_length != n:
            self.strikes += 1
            return self._reset(sid, PROTOCOL_ERROR)   # content-length disagrees with the DATA
        if n == 0:      # no message at all: handed out as None, the caller answers it
            problem = None
        if problem is not None:
            self._release(stream)
            del self.streams[sid]
            self.strikes += 1
            return self._trailers_only(sid, status, problem, None)
        stream.state = AWAITING
        self._release(stream)
        self.ready.append((sid, stream.path, bytes(body[5:]) if n else None,
                           stream.authorization, stream.timeout_us))
        return 0

    cdef int _send_data(self, Stream stream) except -1:
        """Send what the windows allow of ``stream.pending``; finish the stream when done."""
        cdef Py_ssize_t total = PyBytes_GET_SIZE(stream.pending)
        cdef Py_ssize_t chunk
        cdef const uint8_t *data = <const uint8_t *>PyBytes_AS_STRING(stream.pending)
        while stream.pending_offset < total:
            chunk = min(total - stream.pending_offset, self.send_window, stream.send_window,
                        <int64_t>self.peer_max_frame)
            if chunk <= 0:
                return 0
            self._write_frame_header(chunk, DATA, 0, stream.stream_id)
            self.data_sent += chunk
            buf_append(&self.outbox, data + stream.pending_offset, chunk)
            stream.pending_offset += chunk
            self.send_window -= chunk
            stream.send_window -= chunk
        return self._finish(stream)

    cdef int _flush_blocked(self) except -1:
        cdef Stream stream
        if not self.blocked:
            return 0
        for stream in list(self.blocked):
            if stream.state == SENDING:
                self._send_data(stream)
        self.blocked = [s for s in self.blocked if (<Stream>s).state == SENDING]
        return 0

    cdef int _finish(self, Stream stream) except -1:
        self._write_headers(stream.stream_id, <const uint8_t *>PyBytes_AS_STRING(stream.trailers),
                            PyBytes_GET_SIZE(stream.trailers), True)
        stream.state = 0
        stream.pending = None
        self.streams.pop(stream.stream_id, None)
        return 0

    cdef int _trailers_only(self, uint32_t sid, int status, str message,
                            bytes details) except -1:
        block = RESPONSE_HEADERS + hpack_literal(b"grpc-status", str(status).encode())
        if message:
            block += hpack_literal(b"grpc-message", percent_encode(message))
        if details:
            block += hpack_literal(b"grpc-status-details-bin",
                                   b2a_base64(details, newline=False).rstrip(b"="))
        return self._write_headers(sid, <const uint8_t *>PyBytes_AS_STRING(block),
                                   PyBytes_GET_SIZE(block), True)

    cdef int _reset(self, uint32_t sid, uint32_t code) except -1:
        cdef uint8_t payload[4]
        cdef Stream stream = self.streams.pop(sid, None)
        if stream is not None:
            self._release(stream)
            if stream.state == SENDING:
                self.blocked.remove(stream)
        if len(self.reset_ids) >= RESET_MEMORY:
            self.reset_ids.clear()
        self.reset_ids.add(sid)
        put32(payload, code)
        self._write_frame_header(4, RST_STREAM, 0, sid)
        buf_append(&self.outbox, payload, 4)
        return 0

    cdef int _fail(self, uint32_t code, str why) except -1:
        """Connection error: GOAWAY with ``why`` as debug data; nothing more is read."""
        cdef uint8_t payload[8]
        cdef bytes debug = why.encode("utf-8")[:256]
        if self.closed:
            return 0
        put32(payload, self.last_stream_id)
        put32(payload + 4, code)
        self._write_frame_header(8 + len(debug), GOAWAY, 0, 0)
        buf_append(&self.outbox, payload, 8)
        buf_append(&self.outbox, <const uint8_t *>PyBytes_AS_STRING(debug), len(debug))
        self.closed = True
        self.error = why
        self.buffered = 0
        self.streams.clear()
        self.blocked = []
        return 0

    # -- frames out -----------------------------------------------------------------------------

    cdef int _write_frame_header(self, size_t length, uint8_t kind, uint8_t flags,
                                 uint32_t sid) except -1:
        cdef uint8_t *p
        buf_reserve(&self.outbox, 9)
        p = self.outbox.data + self.outbox.length
        p[0] = (length >> 16) & 0xff
        p[1] = (length >> 8) & 0xff
        p[2] = length & 0xff
        p[3] = kind
        p[4] = flags
        put32(p + 5, sid)
        self.outbox.length += 9
        return 0

    cdef int _write_headers(self, uint32_t sid, const uint8_t *block, size_t length,
                            bint end_stream) except -1:
        """A header block as HEADERS and, past the peer's frame size, CONTINUATION frames."""
        cdef size_t chunk = min(length, <size_t>self.peer_max_frame)
        cdef uint8_t flags = END_STREAM if end_stream else 0
        if chunk == length:
            flags |= END_HEADERS
        self._write_frame_header(chunk, HEADERS, flags, sid)
        buf_append(&self.outbox, block, chunk)
        block += chunk
        length -= chunk
        while length:
            chunk = min(length, <size_t>self.peer_max_frame)
            self._write_frame_header(chunk, CONTINUATION, END_HEADERS if chunk == length else 0,
                                     sid)
            buf_append(&self.outbox, block, chunk)
            block += chunk
            length -= chunk
        return 0
