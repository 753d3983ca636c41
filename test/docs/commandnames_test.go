package docs_test

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wavekit-dev/wavekit/internal/cli"
)

// The commands that prose names: a `wavekit ...` code span in the docs or
// in a Go comment (a package doc, a type's doc), and a command line in a
// comment's code block, are checked as far as they name commands and flags
// — the words up to the first argument or placeholder. A command line in a
// help's examples (cobra's Example) is checked whole, as the docs' shell
// lines are.
var _ = Describe("wavekit commands named in prose and in help", func() {
	It("exist: code spans of the docs and of Go comments, and command lines in Go comments", func() {
		root := cli.NewRootCommand(io.Discard, io.Discard)
		checked := 0
		var problems []string
		check := func(where, text string) {
			checked++
			err := checkNamed(root, text)
			switch {
			case shownAsMistakes[text] && err == nil:
				problems = append(problems, fmt.Sprintf("%s: `%s` is shown as a mistake, and is none", where, text))
			case !shownAsMistakes[text] && err != nil:
				problems = append(problems, fmt.Sprintf("%s: `%s`: %v", where, text, err))
			}
		}
		for _, page := range userDocs() {
			for _, m := range codeSpan.FindAllStringSubmatch(readPage(page), -1) {
				if namesCommand(m[1]) {
					check(page, m[1])
				}
			}
		}
		for file, comments := range goComments() {
			for _, text := range comments {
				for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
					if namesCommand(m[1]) {
						check(file, m[1])
					}
				}
				for _, line := range commentCodeLines(text) {
					check(file, line)
				}
			}
		}
		Expect(problems).To(BeEmpty())
		Expect(checked).To(BeNumerically(">=", 80), "the docs and comments name wavekit commands; did the span detection break?")
	})

	It("exist with their flags and arguments: every command line of a command's help examples", func() {
		checked := 0
		var problems []string
		var walk func(*cobra.Command)
		walk = func(c *cobra.Command) {
			for _, line := range shellLines("```sh\n" + c.Example + "\n```") {
				args, ok := wavekitArgs(strings.TrimPrefix(line, "kubectl "))
				if !ok {
					continue
				}
				checked++
				if err := parseCommandLine(args); err != nil {
					problems = append(problems, fmt.Sprintf("%s: example %q: %v", c.CommandPath(), line, err))
				}
			}
			for _, sub := range c.Commands() {
				walk(sub)
			}
		}
		walk(cli.NewRootCommand(io.Discard, io.Discard))
		Expect(problems).To(BeEmpty())
		Expect(checked).To(BeNumerically(">=", 30))
	})

	It("catches a command that does not exist, under a group too, and a flag that does not exist", func() {
		root := cli.NewRootCommand(io.Discard, io.Discard)
		Expect(checkNamed(root, "wavekit cluster up")).To(MatchError(ContainSubstring(`unknown command "up" for "wavekit cluster"`)))
		Expect(checkNamed(root, "wavekit rendr")).To(MatchError(ContainSubstring(`unknown command "rendr"`)))
		Expect(checkNamed(root, "kubectl wavekit tree --sets")).To(MatchError(ContainSubstring("--sets")))
		Expect(checkNamed(root, "wavekit render|diff|aply --sops-age-key FILE")).To(MatchError(ContainSubstring(`"aply"`)))
		Expect(checkNamed(root, "wavekit cluster create --operator [--source NAME=DIR]…")).To(Succeed())
		Expect(checkNamed(root, "wavekit diff component [NAMESPACE/NAME] [-f FILE]")).To(Succeed())
		Expect(checkNamed(root, "wavekit tree web")).To(Succeed(), "an argument, not a command")
		Expect(checkNamed(root, "wavekit <command> --help")).To(Succeed(), "a placeholder")
		Expect(checkNamed(root, "wavekit help cluster up")).To(MatchError(ContainSubstring(`unknown command "up"`)))
		Expect(namesCommand("wavekit's")).To(BeFalse())
		Expect(commentCodeLines("Run it:\n\n\twavekit cluster up\n\tkubectl get nodes\n")).To(Equal([]string{"wavekit cluster up"}))
	})
})

// shownAsMistakes are the spans the docs show as what a user may mistype,
// with what wavekit answers.
var shownAsMistakes = map[string]bool{
	"wavekit rendr":              true,
	"wavekit cluster creat":      true,
	"wavekit cluster nosuch":     true,
	"wavekit plugin nosuch":      true,
	"wavekit help nosuch":        true,
	"wavekit help cluster creat": true,
}

// namesCommand tells whether a code span runs wavekit.
func namesCommand(span string) bool {
	return strings.HasPrefix(span, "wavekit ") || strings.HasPrefix(span, "kubectl wavekit ")
}

// commandWord is a word that can name a command: anything else (NAME,
// <command>, ./chart, v0.2.0) is an argument or a placeholder.
var commandWord = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// checkNamed checks the commands and flags text names, a span such as
// "wavekit cluster create --operator [--source NAME=DIR]…": each word
// before the first argument names a command under the one before it (or,
// as a|b, each of several), and each flag exists on the commands named.
func checkNamed(root *cobra.Command, text string) error {
	words := strings.Fields(strings.TrimPrefix(text, "kubectl "))[1:]
	cmds, commands, takesValue := []*cobra.Command{root}, true, false
	for _, word := range words {
		word = strings.Trim(word, "[]…")
		switch {
		case takesValue:
			takesValue = false
		case word == "help" && len(cmds) == 1 && cmds[0] == root:
			// help's arguments name a command, from the root
		case strings.HasPrefix(word, "-") && len(word) > 1:
			for _, cmd := range cmds {
				flag, err := flagOf(cmd, word)
				if err != nil {
					return err
				}
				takesValue = !strings.Contains(word, "=") && flag.Value.Type() != "bool"
			}
		case commands && allCommandWords(strings.Split(word, "|")):
			var next []*cobra.Command
			for _, alternative := range strings.Split(word, "|") {
				sub, err := subcommand(cmds[0], alternative)
				if err != nil {
					return err
				}
				if sub != nil {
					next = append(next, sub)
				}
			}
			if len(next) == 0 { // an argument
				commands = false
				continue
			}
			cmds, commands = next, len(next) == 1
		default:
			commands = false
		}
	}
	return nil
}

// flagOf is the flag cmd has under word (--name, --name=value or -n).
func flagOf(cmd *cobra.Command, word string) (*pflag.Flag, error) {
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	name, _, _ := strings.Cut(strings.TrimLeft(word, "-"), "=")
	flag := cmd.Flags().Lookup(name)
	if !strings.HasPrefix(word, "--") {
		flag = cmd.Flags().ShorthandLookup(name)
	}
	if flag == nil {
		return nil, fmt.Errorf("%s has no flag %s", cmd.CommandPath(), word)
	}
	return flag, nil
}

func allCommandWords(words []string) bool {
	for _, word := range words {
		if !commandWord.MatchString(word) {
			return false
		}
	}
	return true
}

// subcommand is the command word names under cmd; nil when word is an
// argument of cmd, an error when cmd only groups others (the CLI's own
// UnknownCommandError).
func subcommand(cmd *cobra.Command, word string) (*cobra.Command, error) {
	if !cmd.HasSubCommands() {
		return nil, nil
	}
	for _, sub := range cmd.Commands() {
		if sub.Name() == word || sub.HasAlias(word) {
			return sub, nil
		}
	}
	var unknown *cli.UnknownCommandError
	if err := cmd.ValidateArgs([]string{word}); errors.As(err, &unknown) {
		return nil, err
	}
	return nil, nil
}

// goComments returns the text of every comment of the module's Go files,
// by file relative to the module root.
func goComments() map[string][]string {
	GinkgoHelper()
	comments := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "_output") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		file, err := parser.ParseFile(fset, path, data, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, group := range file.Comments {
			comments[rel] = append(comments[rel], group.Text())
		}
		return nil
	})
	Expect(err).NotTo(HaveOccurred())
	return comments
}

// commentCodeLines are the lines of a comment's code blocks (indented, as
// gofmt keeps them) that run wavekit.
func commentCodeLines(text string) []string {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "  ") {
			continue
		}
		if line = stripComment(strings.TrimSpace(line)); namesCommand(line) {
			lines = append(lines, line)
		}
	}
	return lines
}
