package handover

import "context"

type handedOver struct{}

// Objects returns ctx marked so that the Apply it is passed to may change
// the objects it is given.
func Objects(ctx context.Context) context.Context {
	return context.WithValue(ctx, handedOver{}, true)
}

// Given tells whether ctx hands the objects over (Objects).
func Given(ctx context.Context) bool {
	given, _ := ctx.Value(handedOver{}).(bool)
	return given
}
