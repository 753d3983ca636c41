package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/wavekit-dev/wavekit/internal/testing/fakescm"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8089", "the address to serve on")
	data := flag.String("data", "", "a JSON file of the pull requests, by owner/repo")
	flag.Parse()
	if err := run(*listen, *data); err != nil {
		fmt.Fprintln(os.Stderr, "fakescm:", err)
		os.Exit(1)
	}
}

func run(listen, data string) error {
	repos := map[string][]fakescm.PR{}
	if data != "" {
		raw, err := os.ReadFile(data)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &repos); err != nil {
			return fmt.Errorf("%s: %w", data, err)
		}
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	s := fakescm.NewOn(l)
	for repo, prs := range repos {
		for _, pr := range prs {
			s.Add(repo, pr)
		}
	}
	s.Start()
	fmt.Printf("fakescm: serving %d repositories on %s\n", len(repos), s.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	s.Close()
	return nil
}
