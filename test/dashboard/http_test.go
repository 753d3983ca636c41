package dashboard_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// httpClient follows no redirect: the tests look at each answer.
var httpClient = &http.Client{
	Timeout:       10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// bodies are every response body the tests read, to look for the Secret
// marker in all of them at the end.
var bodies struct {
	sync.Mutex
	all []string
}

// fetch sends method url with token (none when empty) and returns the
// status code, the headers and the body.
func fetch(method, url, token string) (int, http.Header, string, error) {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return 0, nil, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, "", fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	bodies.Lock()
	bodies.all = append(bodies.all, string(body))
	bodies.Unlock()
	return resp.StatusCode, resp.Header, string(body), err
}

// status returns the code of GET url with token.
func status(url, token string) (int, error) {
	code, _, _, err := fetch(http.MethodGet, url, token)
	return code, err
}

// page returns the body of GET url, which must answer 200.
func page(url, token string) string {
	GinkgoHelper()
	code, _, body, err := fetch(http.MethodGet, url, token)
	Expect(err).NotTo(HaveOccurred())
	Expect(code).To(Equal(http.StatusOK), body)
	return body
}

// componentURL is the page of a Component.
func componentURL(namespace, name string) string {
	return base + "/c/" + componentsKind + "/" + namespace + "/" + name
}

// containsAny tells which of the texts contains s.
func containsAny(texts []string, s string) []int {
	var out []int
	for i, t := range texts {
		if strings.Contains(t, s) {
			out = append(out, i)
		}
	}
	return out
}
