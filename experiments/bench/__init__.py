"""Scaffolding of the benchmark, apart from what running an evaluation imports: the performance figures
(``figures``, ``mobilepa bench``), the scripted OpenAI-compatible server the figures and the tests run
planners against (``scripted_server``) and the builder of the tiny random-weight model for vLLM on the
CPU (``tiny_model``, ``make test-vllm``). Nothing under ``sandbox``, ``planners``, ``verification``,
``cluster`` or the evaluation commands imports it."""
