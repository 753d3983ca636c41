package docs_test

import (
	"fmt"
	"io"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/cli"
)

var _ = Describe("wavekit command lines in the docs", func() {
	It("parse: the command and its flags exist and the arguments fit", func() {
		checked := 0
		var problems []string
		for _, page := range userDocs() {
			for line, text := range shellLines(readPage(page)) {
				args, ok := wavekitArgs(text)
				if !ok {
					continue
				}
				checked++
				if err := parseCommandLine(args); err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: %s: %v", page, line, text, err))
				}
			}
		}
		Expect(problems).To(BeEmpty())
		Expect(checked).To(BeNumerically(">=", 12), "the docs show wavekit command lines; did the block detection break?")
	})

	It("catches a flag that does not exist and a missing argument", func() {
		Expect(parseCommandLine([]string{"render", "./chart", "--no-such-flag"})).To(MatchError(ContainSubstring("no-such-flag")))
		Expect(parseCommandLine([]string{"apply", "demo"})).To(HaveOccurred())
		Expect(parseCommandLine([]string{"rendr", "./chart"})).To(HaveOccurred())
		Expect(parseCommandLine([]string{"delete", "demo", "--wait"})).To(Succeed())
	})
})

// wavekitArgs returns the arguments of a line that runs wavekit, up to the
// first pipe, redirection or command separator.
func wavekitArgs(line string) ([]string, bool) {
	words := shellWords(line)
	if len(words) > 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/wavekit" {
		words = words[2:]
		words[0] = "wavekit"
	}
	if len(words) == 0 || words[0] != "wavekit" {
		return nil, false
	}
	for i, word := range words[1:] {
		switch word {
		case "|", "||", "&&", ";", ">", ">>", "2>&1":
			return words[1 : i+1], true
		}
	}
	return words[1:], true
}

// shellWords splits a line as a shell splits words, keeping $(...) as one word.
func shellWords(line string) []string {
	var words []string
	var word strings.Builder
	quote, depth, inWord := rune(0), 0, false
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
				continue
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
			continue
		case r == '(' && strings.HasSuffix(word.String(), "$"):
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ' ' || r == '\t') && depth == 0:
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
			continue
		}
		word.WriteRune(r)
		inWord = true
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}

// parseCommandLine finds the wavekit command of args, parses its flags and
// checks its positional arguments, without running it.
func parseCommandLine(args []string) error {
	root := cli.NewRootCommand(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd == root && len(rest) > 0 {
		return fmt.Errorf("unknown command %q", rest[0])
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return nil
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}
