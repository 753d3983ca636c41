package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// shardFlags choose the Components this process reconciles.
type shardFlags struct {
	key      string
	selector string
}

func bindShardFlags(fs *flag.FlagSet) *shardFlags {
	s := &shardFlags{}
	fs.StringVar(&s.key, "shard", "", "reconcile only Components whose label <operator-name>/shard is this key (default: those without the label); each shard elects its own leader")
	fs.StringVar(&s.selector, "watch-label-selector", "", "reconcile only Components this label selector matches, besides --shard (e.g. team=payments)")
	return s
}

// componentSelector is the selector of --shard and --watch-label-selector.
func (s *shardFlags) componentSelector(operatorName string) (labels.Selector, error) {
	selector, err := component.ShardSelector(operatorName, s.key)
	if err != nil {
		return nil, fmt.Errorf("--shard: %w", err)
	}
	if s.selector == "" {
		return selector, nil
	}
	extra, err := labels.Parse(s.selector)
	if err != nil {
		return nil, fmt.Errorf("--watch-label-selector %q: %w", s.selector, err)
	}
	requirements, _ := extra.Requirements()
	return selector.Add(requirements...), nil
}

// leaseName is the leader-election Lease of this shard: the unsharded
// operator keeps the name it always had, and every shard and selector has
// one of its own, so that each elects its own leader.
func (s *shardFlags) leaseName(operatorName string) string {
	name := operatorName + ".component-operator"
	if s.key != "" {
		name += ".shard-" + s.key
	}
	if s.selector != "" {
		sum := sha256.Sum256([]byte(s.selector))
		name += ".selector-" + hex.EncodeToString(sum[:4])
	}
	return name
}
