package shard

import (
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

// TestOutside: every label set is matched either by the selector or by one
// of the selectors outside returns, never by both; the default shard's
// complement is one selector, "<operator>/shard".
func TestOutside(t *testing.T) {
	shard := func(key string) labels.Selector {
		s, err := Selector("wavekit.dev", key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	withTeam := func(s labels.Selector) labels.Selector {
		extra, err := labels.Parse("team in (payments,shop),tier!=cache")
		if err != nil {
			t.Fatal(err)
		}
		requirements, _ := extra.Requirements()
		return s.Add(requirements...)
	}
	sets := []labels.Set{
		{}, {"wavekit.dev/shard": "a"}, {"wavekit.dev/shard": "b"}, {"team": "payments"},
		{"team": "shop", "tier": "cache"}, {"team": "shop", "tier": "web", "wavekit.dev/shard": "a"},
		{"team": "ops", "wavekit.dev/shard": "a"}, {"team": "payments", "wavekit.dev/shard": "a"},
	}
	for name, selector := range map[string]labels.Selector{
		"default shard": shard(""), "shard a": shard("a"), "shard a of teams": withTeam(shard("a")),
		"every component": labels.Everything(),
	} {
		t.Run(name, func(t *testing.T) {
			others, ok := Outside(selector)
			if !ok {
				t.Fatalf("Outside(%s): no complement", selector)
			}
			for _, set := range sets {
				inside, out := selector.Matches(set), 0
				for _, o := range others {
					if o.Matches(set) {
						out++
					}
				}
				if inside == (out > 0) {
					t.Errorf("%v: matched by %s: %v, by %d of %v", set, selector, inside, out, others)
				}
			}
		})
	}
	if others, _ := Outside(shard("")); len(others) != 1 || others[0].String() != "wavekit.dev/shard" {
		t.Errorf("outside the default shard: %v, want [wavekit.dev/shard]", others)
	}
	gt, err := labels.Parse("replicas>2")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Outside(gt); ok {
		t.Error("Outside(replicas>2): a complement, want none")
	}
}
