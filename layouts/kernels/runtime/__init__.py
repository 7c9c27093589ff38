"""The copy engine at run time: its thread pool (:mod:`.pool`), per-thread scratch buffers
(:mod:`.scratch`), and what repeat calls read (:mod:`.pointers`, :mod:`.recency`)."""
