// Package livestatus reads an inventory item's object as it is now and
// judges it as a pass of the engine would (the owner's health checks, else
// kstatus with wavekit's rules and the object's status-hint): the LIVE
// column of wavekit status and tree.
package livestatus
