// Package alert holds wavekit alert: test sends one alert through a
// Provider now, as the operator would, reading the Provider and its Secret
// with the user's identity.
package alert
