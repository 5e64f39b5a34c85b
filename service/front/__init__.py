"""The unary front: the unary RPCs on a port of their own, over a compiled HTTP/2 path.

``server.py`` owns the sockets and the epoll loop; ``_http2.pyx`` is the sans-IO HTTP/2 server
connection, decoding header blocks with the HPACK decoder in ``hpack.h`` (declared for Cython in
``hpack.pxd``); ``_hpack.pyx`` wraps that decoder for the tests and is not installed.
"""
