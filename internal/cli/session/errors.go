package session

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// ExitError ends a command with a given exit code; Err, when set, is printed
// as the error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit code %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// ErrorExitCode is the annotation of a command whose errors exit with
// another code than 1 (diff: 2, since 1 means "changes").
const ErrorExitCode = "wavekit.dev/error-exit-code"

// hinted is an error followed by what the user can do about it.
type hinted struct {
	err   error
	hints []string
}

func (h *hinted) Error() string {
	return strings.Join(append([]string{h.err.Error()}, h.hints...), "\n")
}
func (h *hinted) Unwrap() error { return h.err }

// Hint adds lines saying what to do to err.
func Hint(err error, hints ...string) error { return &hinted{err: err, hints: hints} }

// ExactArgs requires the positional arguments named in usage, e.g. "NAME SOURCE".
func ExactArgs(usage string) cobra.PositionalArgs {
	want := len(strings.Fields(usage))
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != want && want == 0 {
			return fmt.Errorf("%s takes no arguments, got %d (see wavekit %s --help)", cmd.Name(), len(args), cmd.Name())
		}
		if len(args) != want {
			return fmt.Errorf("%s needs %s, got %d arguments (see wavekit %s --help)", cmd.Name(), usage, len(args), cmd.Name())
		}
		return nil
	}
}
