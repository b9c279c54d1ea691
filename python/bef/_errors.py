"""The exceptions of the `bef` package (re-exported by `bef`).

Every error the runtime reports carries what a user needs to act on it:

    code      the status code's name ("INVALID_ARGUMENT", "CANCELLED", ...)
    message   the runtime's message, exactly as bef_executor prints it
    location  the failing kernel's source location ("model.mlir:12:8"),
              or None when the runtime knows none
    function  the function that was run (run errors)
    result    the index of the first result that carried the error
"""

import builtins


class Error(Exception):
    """Base class of every error of the `bef` package."""

    def __init__(self, message, *, code=None, location=None, function=None, result=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.location = location
        self.function = function
        self.result = result

    def __reduce__(self):
        # Pickled with its details (multiprocessing sends errors between
        # processes this way).
        return (_rebuild, (type(self), self.message, self.code, self.location, self.function,
                           self.result))

    def __str__(self):
        text = self.message
        if self.function is not None:
            text = f"{self.function}: {text}"
        if self.location:
            text = f"{text} (at {self.location})"
        return text


def _rebuild(cls, message, code, location, function, result):
    return cls(message, code=code, location=location, function=function, result=result)


class LoadError(Error):
    """A BEF file that cannot be read or does not verify."""


class ArgumentError(Error, TypeError, ValueError):
    """A call the runtime never saw: unknown function, wrong number of
    arguments, a value that does not fit its BEF type, a bad option."""


class RuntimeError(Error, builtins.RuntimeError):
    """A kernel failed while the program ran."""


class CancelledError(Error):
    """The run was cancelled (Future.cancel(), Ctrl-C, the program itself)."""


class DeadlineExceededError(CancelledError, TimeoutError):
    """The run's `timeout=` passed before it finished."""


class ConverterError(Error):
    """MLIR text that does not convert (mlir_to_bef) or BEF that does not
    convert back (bef_to_mlir); the message holds MLIR's diagnostics."""
