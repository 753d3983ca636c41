// Package generator composes wavekit generators.
//
// Chain concatenates the objects of several generators. WithParameterTransformers
// changes the parameters before a generator sees them and WithObjectTransformers
// changes its objects afterwards; both take small interfaces with function
// adapters, so a transformer is a func or a type with one method. Ready-made
// transformers add labels or annotations, set container images and drop
// objects; DefaultValues fills in parameters.
//
// A custom generator needs nothing from this package: any type with the
// method Generate(ctx, namespace, name, parameters) is a manifests.Generator
// (see the example). Every function here keeps the generator contract: on any
// error it returns no objects at all.
package generator
