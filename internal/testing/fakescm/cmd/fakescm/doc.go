// Command fakescm serves the fake pull request API of
// internal/testing/fakescm on an address, with the pull requests of a JSON
// file: {"owner/repo": [{"number": 12, "branch": "...", "target": "main",
// "head": "<sha>", "title": "...", "labels": ["preview"]}]}. It is for
// examples that run offline; tests start the server in-process.
package main
