"""AllocBench's reinforcement-learning trainer (paper Appendix F): per-decision PPO on the urn, driven
through the TypeScript environment `allocbench rl-env`, with a critic, a step-0 gate, a GRPO pilot,
resumable run directories and an OpenAI-compatible server for evaluating checkpoints with the harness.
"""

import logging
import warnings

# Third-party noise a user would read as a problem: bitsandbytes looks for an optional CPU 4-bit kernel
# on import (4-bit runs only on a GPU here), and peft still asks for a renamed transformers attribute.
logging.getLogger("bitsandbytes").setLevel(logging.ERROR)
warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)
