// Package componentsets holds what the command line shows of ComponentSets:
// get --sets and tree --set, views it adds to the Component verbs get and
// tree (AddSetViews), and diff componentset, diff component for the
// Component of each cluster of a set.
package componentsets
