"""Arrays in and back: foreign kinds read as numpy and handed back as their own kind
(:mod:`.foreign`: torch, DLPack, the array API, lazy kinds such as dask), torch's names for memory
orders (:mod:`.torch_names`), cache-line aligned allocation (:mod:`.aligned`) and structured
dtypes seen as raw bytes (:mod:`.raw_bytes`)."""
