// Package history records what happens in a test's clusters for a checker
// to judge afterwards: a watch of each kind it is given, on each cluster,
// keeps every change with the object as it was, its resourceVersion and
// the time it was seen. A watch that breaks (the API server restarted,
// etcd stopped) goes on from the last resourceVersion it saw; when that is
// too old it lists again, records what the list shows and what it no
// longer holds, and marks the gap, since changes in between are lost.
//
// resourceVersions are etcd revisions: they order the changes of one
// cluster (across kinds), never those of two clusters.
package history
