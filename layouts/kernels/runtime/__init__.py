"""The copy engine at run time: its thread pool (:mod:`.pool`) and where its threads run
(:mod:`.affinity`), per-thread scratch buffers (:mod:`.scratch`), and the addresses and recent
writes repeat calls read (:mod:`.pointers`, :mod:`.recency`)."""
