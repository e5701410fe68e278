"""`tf.config.optimizer`: the graph optimizer's options for new sessions, and XLA's switch.

Only names, from `minitf/session/context.py`. Mirrors TF 1.15's
`tf.config.optimizer`.
"""

from minitf.session.context import (get_experimental_options, get_jit,  # noqa: F401
                                    set_experimental_options, set_jit)
