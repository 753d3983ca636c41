package receiver

import (
	"testing"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

func TestPushedRepositoriesMatchTheirComponents(t *testing.T) {
	github := []byte(`{"ref":"refs/heads/main","repository":{"clone_url":"https://github.com/Acme/Deploy.git","ssh_url":"git@github.com:Acme/Deploy.git","html_url":"https://github.com/Acme/Deploy"}}`)
	gitlab := []byte(`{"project":{"git_http_url":"https://gitlab.example.com/acme/deploy.git","git_ssh_url":"ssh://git@gitlab.example.com:2222/acme/deploy.git"}}`)
	git := func(url string) *v1alpha1.ComponentSpec {
		return &v1alpha1.ComponentSpec{Git: &v1alpha1.GitSource{URL: url}}
	}
	cases := []struct {
		typ  v1alpha1.ReceiverType
		body []byte
		spec *v1alpha1.ComponentSpec
		want bool
	}{
		{v1alpha1.ReceiverGitHub, github, git("https://github.com/acme/deploy"), true},
		{v1alpha1.ReceiverGitHub, github, git("ssh://git@github.com/acme/deploy.git"), true},
		{v1alpha1.ReceiverGitHub, github, git("https://github.com/acme/other"), false},
		{v1alpha1.ReceiverGitHub, github, &v1alpha1.ComponentSpec{Source: "web"}, true},
		{v1alpha1.ReceiverGitHub, github, &v1alpha1.ComponentSpec{Source: "web", ValuesFrom: []v1alpha1.ValuesReference{{Kind: "Git", Git: &v1alpha1.GitSource{URL: "https://github.com/acme/deploy"}}}}, true},
		{v1alpha1.ReceiverGitLab, gitlab, git("ssh://git@gitlab.example.com/acme/deploy"), true},
		{v1alpha1.ReceiverGitLab, gitlab, git("https://gitlab.example.com/acme/other.git"), false},
	}
	for i, c := range cases {
		keys := pushed(c.typ, c.body)
		if len(keys) == 0 {
			t.Fatalf("case %d: the push names no repository", i)
		}
		if got := readsPushed(c.spec, keys); got != c.want {
			t.Errorf("case %d: %v asked = %v, want %v (pushed %v)", i, c.spec, got, c.want, keys)
		}
	}
	if keys := pushed(v1alpha1.ReceiverHarbor, github); keys != nil {
		t.Errorf("a registry's request names no repository, got %v", keys)
	}
	if keys := pushed(v1alpha1.ReceiverGitHub, []byte(`{"zen":"ping"}`)); keys != nil {
		t.Errorf("a ping names no repository, got %v", keys)
	}
}

func TestAPullRequestEventAsksTheSetsThatReadItsRepository(t *testing.T) {
	event := []byte(`{"action":"labeled","number":12,"repository":{"html_url":"https://github.com/Acme/Shop","clone_url":"https://github.com/Acme/Shop.git"}}`)
	keys := pushed(v1alpha1.ReceiverGitHub, event)
	set := func(in v1alpha1.InputSource) *v1alpha1.ComponentSet {
		return &v1alpha1.ComponentSet{Spec: v1alpha1.ComponentSetSpec{Inputs: &v1alpha1.Inputs{InputSource: in}}}
	}
	prs := func(url, repo string) v1alpha1.InputSource {
		return v1alpha1.InputSource{PullRequests: &v1alpha1.PullRequestsInput{Provider: v1alpha1.PullRequestsGitHub, URL: url, Repository: repo}}
	}
	cases := []struct {
		set  *v1alpha1.ComponentSet
		want bool
	}{
		{set(prs("", "acme/shop")), true},
		{set(prs("https://api.github.com", "acme/shop")), true},
		{set(prs("", "acme/other")), false},
		{set(v1alpha1.InputSource{GitDirectories: &v1alpha1.GitDirectoriesInput{GitInputRepository: v1alpha1.GitInputRepository{URL: "https://github.com/acme/shop.git"}}}), true},
		{set(v1alpha1.InputSource{List: []v1alpha1.InputEntry{}}), false},
		{&v1alpha1.ComponentSet{}, false},
	}
	for i, c := range cases {
		if got := setInputsRead(c.set, keys); got != c.want {
			t.Errorf("case %d: asked = %v, want %v (event names %v)", i, got, c.want, keys)
		}
	}
}
