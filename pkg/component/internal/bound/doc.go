// Package bound keeps every message the reconciler writes within what the
// API server stores: a condition's message within ConditionLimit, an
// Event's note within EventLimit. A message too long keeps its first
// problems whole and ends with "… and N more" (Message, Problems, Objects);
// Recorder bounds every Event it records, whoever calls it.
package bound
