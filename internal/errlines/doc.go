// Package errlines prints an error for a person: one problem per line. The
// first line follows a prefix such as "error: ", every further line (the
// other errors of an errors.Join, a hint on what to do) is indented under
// it, and empty lines are left out.
package errlines
