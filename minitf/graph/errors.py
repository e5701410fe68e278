"""Errors: the exception classes a TensorFlow program catches.

Every failure the runtime reports is an `OpError` carrying a canonical error
code (the same numbers as gRPC's status codes), the name of the node that
failed and a message. The front end and the runtime raise the same classes, so
`except tf.errors.InvalidArgumentError` works wherever the problem was found.

Mirrors `tensorflow/python/framework/errors_impl.py` and
`tensorflow/core/lib/core/error_codes.proto`.
"""

import errno

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while building or running an op.

    `node_def` is the NodeDef of the failing node (or None), `op` the Python
    Operation when the front end knows it, `message` the explanation.
    """

    def __init__(self, node_def, op, message, error_code):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def error_code(self):
        return self._error_code

    @property
    def node_def(self):
        return self._node_def

    def __str__(self):
        return self._message

    def __reduce__(self):
        # Errors cross process boundaries in the distributed runtime.
        return (_rebuild_error, (type(self), self._node_def, self._message))


def _rebuild_error(cls, node_def, message):
    return cls(node_def, None, message)


def _error_class(class_name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    return type(class_name, (OpError,), {"__init__": __init__, "__doc__": doc})


CancelledError = _error_class("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _error_class("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _error_class(
    "InvalidArgumentError", INVALID_ARGUMENT, "An op received an argument it cannot accept.")
DeadlineExceededError = _error_class(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired before the op finished.")
NotFoundError = _error_class("NotFoundError", NOT_FOUND, "A file or resource was not found.")
AlreadyExistsError = _error_class(
    "AlreadyExistsError", ALREADY_EXISTS, "An entity that was to be created already exists.")
PermissionDeniedError = _error_class(
    "PermissionDeniedError", PERMISSION_DENIED, "The caller may not run the operation.")
UnauthenticatedError = _error_class(
    "UnauthenticatedError", UNAUTHENTICATED, "The request has no valid credentials.")
ResourceExhaustedError = _error_class(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "Some resource has been exhausted.")
FailedPreconditionError = _error_class(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state to run the op (e.g. an uninitialized variable).")
AbortedError = _error_class("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _error_class(
    "OutOfRangeError", OUT_OF_RANGE, "The operation went past the valid range.")
UnimplementedError = _error_class(
    "UnimplementedError", UNIMPLEMENTED, "The operation is not implemented or supported.")
InternalError = _error_class("InternalError", INTERNAL, "An invariant of the system broke.")
UnavailableError = _error_class(
    "UnavailableError", UNAVAILABLE, "The runtime is unavailable (e.g. a dead worker).")
DataLossError = _error_class("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")

_CODE_TO_CLASS = {
    CANCELLED: CancelledError, UNKNOWN: UnknownError, INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError, NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError, PERMISSION_DENIED: PermissionDeniedError,
    UNAUTHENTICATED: UnauthenticatedError, RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError, ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError, UNIMPLEMENTED: UnimplementedError, INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError, DATA_LOSS: DataLossError,
}


def exception_type_from_error_code(error_code):
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls):
    for code, klass in _CODE_TO_CLASS.items():
        if klass is cls:
            return code
    raise KeyError(cls)


def from_os_error(e, path):
    """An OSError met at `path` as the OpError TensorFlow raises for it."""
    if e.errno == errno.ENOENT:
        return NotFoundError(None, None, "%s; No such file or directory" % path)
    if e.errno == errno.EEXIST:
        return AlreadyExistsError(None, None, "%s; File exists" % path)
    if e.errno in (errno.EACCES, errno.EPERM):
        return PermissionDeniedError(None, None, "%s; Permission denied" % path)
    return UnknownError(None, None, "%s; %s" % (path, e.strerror or e))
