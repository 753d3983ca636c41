// Package webhooktest is a receiver of alerts as a real HTTP server, for
// tests of what sends them (a webhook, Slack, Teams, a CloudEvents sink):
// it keeps every request, method, path, header and body, and answers with
// the status it is given.
package webhooktest
