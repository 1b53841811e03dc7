"""A tiny random-weight Qwen2 chat model with Hermes-style tool calling, built locally.

No model hub is reachable from the CI machines, yet the real vLLM-on-CPU test needs a model that
vLLM loads as Qwen2, with a tokenizer that knows ``<tool_call>`` (the hermes parser refuses one that
does not) and a chat template that renders tools, tool calls and tool results. Its replies are
noise; the point is the launch, request and parsing path. Runs in the vLLM venv (torch,
transformers, tokenizers), so the heavy imports stay inside the function:

    .venv-vllm/bin/python -m experiments.bench.tiny_model .cache/tiny-qwen2
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

SEED = 0
VOCAB_SIZE = 1024
TOOL_TOKENS = [
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<tools>",
    "</tools>",
]
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

# Qwen2.5's template, reduced: tools listed as JSON in the system turn, assistant tool calls as
# <tool_call>{"name": ..., "arguments": {...}}</tool_call>, tool results as <tool_response> in a
# user turn. vLLM hands ``arguments`` to the template as a dict, hence ``tojson``.
CHAT_TEMPLATE = """\
{%- if tools %}
{{- '<|im_start|>system\\n' }}
{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}
{{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n' }}
{{- 'You are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}
{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}
{{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments '
    'within <tool_call></tool_call> XML tags:\\n<tool_call>\\n'
    '{\"name\": <function-name>, \"arguments\": <args-json-object>}\\n</tool_call><|im_end|>\\n' }}
{%- elif messages[0].role == 'system' %}
{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
{%- else %}
{{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first)
      or (message.role == 'assistant' and not message.tool_calls) %}
{{- '<|im_start|>' + message.role + '\\n' + (message.content or '') + '<|im_end|>\\n' }}
{%- elif message.role == 'assistant' %}
{{- '<|im_start|>assistant' }}
{%- if message.content %}{{- '\\n' + message.content }}{%- endif %}
{%- for tool_call in message.tool_calls %}
{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '\\n<tool_call>\\n{\"name\": \"' + tool_call.name + '\", \"arguments\": ' }}
{%- if tool_call.arguments is string %}{{- tool_call.arguments }}
{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}
{{- '}\\n</tool_call>' }}
{%- endfor %}
{{- '<|im_end|>\\n' }}
{%- elif message.role == 'tool' %}
{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}
{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}{{- '<|im_end|>\\n' }}{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""

_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "send_message",
            "description": "Send a text message to a contact.",
            "parameters": {
                "type": "object",
                "required": ["contact", "text"],
                "properties": {"contact": {"type": "string"}, "text": {"type": "string"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_alarm",
            "description": "Set an alarm at a time of day.",
            "parameters": {
                "type": "object",
                "properties": {"time": {"type": "string", "description": "HH:MM"}, "label": {"type": "string"}},
                "required": ["time"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "finish",
            "description": "End the task with an answer.",
            "parameters": {"type": "object", "properties": {"answer": {"type": "string"}}},
        },
    },
]


# A benchmark request (system prompt, 15 tool schemas, history) is ~10k tokens for this small vocabulary.
MAX_POSITIONS = 16384


def corpus() -> list[str]:
    """Training text: prose, JSON tool schemas and calls, tool results and role markers, so common
    pieces of chat-with-tools traffic become single tokens."""
    prose = [
        "You are a helpful assistant on a mobile phone. Use the tools to complete the task.",
        "Please text Wang Lei that I will be ten minutes late, then set an alarm for 07:30.",
        "The weather in Beijing is sunny with a high of 25 degrees and a low of 14 degrees.",
        "I booked a table for two at 19:00 and sent the confirmation to your calendar.",
        "Done. The message was sent and the alarm is set. Is there anything else?",
    ]
    calls = [
        {"name": "send_message", "arguments": {"contact": "Wang Lei", "text": "Running late"}},
        {"name": "set_alarm", "arguments": {"time": "07:30", "label": "Gym"}},
        {"name": "finish", "arguments": {"answer": "All done."}},
    ]
    results = [{"ok": True, "message_id": 42}, {"ok": True, "alarm_id": 7}, {"error": "no contact"}]
    texts = list(prose)
    texts += [json.dumps(t) for t in _TOOLS]
    texts += [f"<tool_call>\n{json.dumps(c)}\n</tool_call>" for c in calls]
    texts += [f"<tool_response>\n{json.dumps(r)}\n</tool_response>" for r in results]
    roles = ("system", "user", "assistant")
    texts += [f"<|im_start|>{role}\n{p}<|im_end|>\n" for role in roles for p in prose]
    texts += ["<tools>\n" + "\n".join(json.dumps(t) for t in _TOOLS) + "\n</tools>"]
    return texts * 4


def build_tiny_model(out_dir: str | Path) -> Path:
    """Train the tokenizer, build a seeded random 2-layer Qwen2ForCausalLM (hidden 128, 2 heads of
    64: vLLM's CPU attention rejects head_dim 16) and save both to ``out_dir``, replacing it whole
    so a half-written model never looks complete."""
    import torch
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (
        GenerationConfig,
        PreTrainedTokenizerFast,
        Qwen2Config,
        Qwen2ForCausalLM,
    )

    out = Path(out_dir)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus(), trainer=trainer)
    # Not special: the hermes parser must see them in the decoded text; vLLM drops special tokens.
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TOOL_TOKENS])

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        chat_template=CHAT_TEMPLATE,
        model_max_length=MAX_POSITIONS,
    )
    tokenizer.save_pretrained(tmp)

    eos, pad = tokenizer.convert_tokens_to_ids(["<|im_end|>", "<|endoftext|>"])
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=MAX_POSITIONS,
        tie_word_embeddings=True,
        bos_token_id=pad,
        eos_token_id=eos,
        pad_token_id=pad,
    )
    torch.manual_seed(SEED)
    model = Qwen2ForCausalLM(config).to(torch.bfloat16)  # what vLLM's CPU backend runs
    model.generation_config = GenerationConfig(eos_token_id=[eos, pad], pad_token_id=pad)
    model.save_pretrained(tmp)

    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m experiments.bench.tiny_model OUT_DIR")
    print(build_tiny_model(sys.argv[1]))
