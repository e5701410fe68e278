"""`tf.config.threading`: how many threads new sessions run ops with.

Only names, from `minitf/session/context.py`. Mirrors TF 1.15's
`tf.config.threading`.
"""

from minitf.session.context import (get_inter_op_parallelism_threads,  # noqa: F401
                                    get_intra_op_parallelism_threads,
                                    set_inter_op_parallelism_threads,
                                    set_intra_op_parallelism_threads)
