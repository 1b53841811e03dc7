"""Statistics over episodes, pure functions of stored rows or live results: ``stats`` (breakdowns,
intervals, paired tests, the failure taxonomy), ``stability`` and ``groups`` (spread over seeds),
``studies`` (retrieval curves, ablations), ``cost`` (tokens, money, GPU-seconds) and ``compare``
(``mobilepa compare`` and the report's per-cell analysis)."""
