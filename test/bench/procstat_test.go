package bench_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procFigures is what /proc says of a running process: the CPU it used
// (user and system) and its memory in KiB — resident now, resident at its
// peak, and anonymous resident (the heap and stacks, without the mapped
// binary).
type procFigures struct {
	cpu                      time.Duration
	rssKiB, peakKiB, anonKiB float64
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's times
// (100 on every Linux architecture Go builds for).
const clockTicks = 100

// sampleProcess reads the figures of process pid; a process that is gone
// reads as zeros.
func sampleProcess(pid int) procFigures {
	var f procFigures
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// After the command's name, in parentheses: fields 3 onwards;
		// utime and stime are fields 14 and 15.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 12 {
			user, _ := strconv.ParseInt(fields[11], 10, 64)
			system, _ := strconv.ParseInt(fields[12], 10, 64)
			f.cpu = time.Duration(user+system) * time.Second / clockTicks
		}
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return f
	}
	for _, line := range strings.Split(string(status), "\n") {
		name, value, _ := strings.Cut(line, ":")
		kib, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
		switch name {
		case "VmRSS":
			f.rssKiB = kib
		case "VmHWM":
			f.peakKiB = kib
		case "RssAnon":
			f.anonKiB = kib
		}
	}
	return f
}

// loadAverage is the machine's load average over the last minute, which
// the scale benchmark notes beside its times.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	load, _ := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	return load
}

// cpuMeter samples the CPU of this process, an operator's and
// kube-apiserver's (a PID of 0 reads as none).
type cpuMeter struct{ operator, server int }

// cpuSample is the CPU each process had used by a time, or between two.
type cpuSample struct{ self, operator, server time.Duration }

func (m cpuMeter) sample() cpuSample {
	return cpuSample{self: processCPU(), operator: sampleProcess(m.operator).cpu, server: sampleProcess(m.server).cpu}
}

func (s cpuSample) minus(earlier cpuSample) cpuSample {
	return cpuSample{self: s.self - earlier.self, operator: s.operator - earlier.operator, server: s.server - earlier.server}
}

// medianCPU is the median of each process's CPU over samples.
func medianCPU(samples []cpuSample) cpuSample {
	var self, operator, server []time.Duration
	for _, s := range samples {
		self, operator, server = append(self, s.self), append(operator, s.operator), append(server, s.server)
	}
	return cpuSample{self: median(self), operator: median(operator), server: median(server)}
}
