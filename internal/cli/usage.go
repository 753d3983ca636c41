package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
)

// A command line that does not parse — an unknown command or flag, a flag
// value of the wrong type, a wrong number of arguments — runs nothing and
// exits with code 2, with the names that come close and where to read the
// usage. Cobra prints the help of a command with subcommands and no action
// of its own whatever words follow it, and exits 0; refuseUnknownCommands
// makes each of them refuse a word that names none of its subcommands.

// UnknownCommandError is a word given where a command of Parent was
// expected.
type UnknownCommandError struct {
	// Parent is the path of the command, such as "wavekit cluster".
	Parent string
	// Typed is the word.
	Typed string
}

func (e *UnknownCommandError) Error() string {
	return fmt.Sprintf("unknown command %q for %q", e.Typed, e.Parent)
}

// usageError is a command line cmd could not take: its flags (flag), or
// its arguments.
type usageError struct {
	cmd  *cobra.Command
	err  error
	flag bool
}

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// usageFailed tells whether err is a command line that did not parse.
func usageFailed(err error) bool {
	var usage *usageError
	return errors.As(err, &usage)
}

// checkUsage makes every command of the tree under c report a command line
// it cannot take as a usage error: its flags (cobra asks the root's flag
// error function), its arguments, and a word under a command that only
// groups others. The help command refuses an unknown topic too.
func checkUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if words := cmd.Flags().Args(); cmd.Annotations[groupAnnotation] != "" && len(words) > 0 {
			// A mistyped command before the flags of the command meant.
			return &usageError{cmd: cmd, err: &UnknownCommandError{Parent: cmd.CommandPath(), Typed: words[0]}}
		}
		return &usageError{cmd: cmd, err: err, flag: true}
	})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Run, c.RunE = nil, helpTopic
		}
	}
	refuseUnknownCommands(root)
	usage := root.UsageFunc()
	root.SetUsageFunc(func(c *cobra.Command) error {
		if c.Annotations[groupAnnotation] == "" {
			return usage(c)
		}
		// A group's action only refuses words: its usage stays that of
		// a command without one ("wavekit cluster [command]").
		run := c.RunE
		c.RunE = nil
		defer func() { c.RunE = run }()
		return usage(c)
	})
}

// groupAnnotation marks a command that only groups others.
const groupAnnotation = "wavekit.dev/group"

// refuseUnknownCommands walks the tree under c: a command with subcommands
// and no action of its own prints its help when called alone and refuses
// any word as an unknown command; every argument check of a command
// becomes a usage error.
func refuseUnknownCommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownCommands(sub)
	}
	if c.HasSubCommands() && !c.Runnable() {
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[groupAnnotation] = "true"
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &UnknownCommandError{Parent: cmd.CommandPath(), Typed: args[0]}
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return &usageError{cmd: cmd, err: err}
			}
			return nil
		}
	}
}

// helpTopic is the help command's action: the help of the command its
// arguments name, or an unknown command.
func helpTopic(help *cobra.Command, args []string) error {
	target, rest, err := help.Root().Find(args)
	if err != nil {
		return &usageError{cmd: help.Root(), err: err}
	}
	if len(rest) > 0 && target.HasSubCommands() {
		return &usageError{cmd: target, err: &UnknownCommandError{Parent: target.CommandPath(), Typed: rest[0]}}
	}
	target.InitDefaultHelpFlag()
	target.InitDefaultVersionFlag()
	return target.Help()
}

// withUsageHint adds to a usage error where to read the usage: an unknown
// command gets the commands that come close and the --help of the command
// it was given to, an unknown flag the flags that come close and the
// command's --help, a bad flag value the command's --help.
func withUsageHint(err error) error {
	var usage *usageError
	if !errors.As(err, &usage) {
		return err
	}
	path := usage.cmd.CommandPath()
	var unknown *UnknownCommandError
	if errors.As(err, &unknown) {
		var hints []string
		if suggestions := usage.cmd.SuggestionsFor(unknown.Typed); len(suggestions) > 0 {
			hints = append(hints, "did you mean: "+strings.Join(suggestions, ", ")+"?")
		}
		return session.Hint(err, append(hints, fmt.Sprintf("run '%s --help' for the commands", path))...)
	}
	var notExist *pflag.NotExistError
	if errors.As(err, &notExist) {
		var hints []string
		if suggestions := flagSuggestions(usage.cmd, notExist.GetSpecifiedName()); len(suggestions) > 0 {
			hints = append(hints, "did you mean: "+strings.Join(suggestions, ", ")+"?")
		}
		return session.Hint(err, append(hints, fmt.Sprintf("run '%s --help' for its flags", path))...)
	}
	if usage.flag {
		return session.Hint(err, fmt.Sprintf("run '%s --help' for its flags", path))
	}
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return session.Hint(err, fmt.Sprintf("run '%s --help' for its usage", path)) // cobra.NoArgs
	}
	return err
}

// flagSuggestions are the flags of cmd that start with typed, else those
// nearest to it within two edits, as cobra suggests commands.
func flagSuggestions(cmd *cobra.Command, typed string) []string {
	typed = strings.ToLower(typed)
	if len(typed) < 2 {
		return nil // a shorthand
	}
	var prefixed, near []string
	nearest := maxFlagDistance + 1
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		if strings.HasPrefix(f.Name, typed) {
			prefixed = append(prefixed, "--"+f.Name)
		}
		switch d := levenshtein.ComputeDistance(typed, f.Name); {
		case d < nearest:
			nearest, near = d, []string{"--" + f.Name}
		case d == nearest:
			near = append(near, "--"+f.Name)
		}
	})
	if len(prefixed) > 0 {
		near = prefixed
	}
	slices.Sort(near)
	return near
}

// maxFlagDistance is how many edits apart a flag may be from what was typed
// to be suggested: cobra's SuggestionsMinimumDistance for commands.
const maxFlagDistance = 2
