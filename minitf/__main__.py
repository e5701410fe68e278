"""`python -m minitf COMMAND`: the course's command line.

    python -m minitf tour    one small computation at each layer, checked as it goes

The help lists the tour's stages from `minitf.tour.STAGES`, so it names
every stage the tour walks through. An unknown command prints the help to
stderr and exits with status 2, as argparse does.

Mirrors nothing in TensorFlow; it is the course's entry point.
"""

import sys
import textwrap

from minitf import tour


def _stage_name(stage):
    return stage if stage == "GraphDef" else stage.lower()


USAGE = """usage: python -m minitf COMMAND

commands:
  tour    walk the running example (W * x + b) through every layer of minitf:
%s
""" % textwrap.fill("%s; then the %s, checked against NumPy"
                    % (", ".join(_stage_name(s) for s in tour.STAGES[:-1]),
                       _stage_name(tour.STAGES[-1])),
                    width=78, initial_indent=" " * 10, subsequent_indent=" " * 10)


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["tour"]:
        return tour.main()
    if args in ([], ["-h"], ["--help"], ["help"]):
        print(USAGE, end="")
        return 0
    print("unknown command: %s\n" % " ".join(args), file=sys.stderr)
    print(USAGE, end="", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
