package worker

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the worker's Prometheus metrics. A nil *Metrics records
// nothing (tests).
type Metrics struct {
	Judged       *prometheus.CounterVec
	JudgeSeconds prometheus.Histogram
	QueueWait    prometheus.Histogram
	InFlight     prometheus.Gauge
	Redeliveries prometheus.Counter
	SandboxFail  prometheus.Counter
}

// NewMetrics registers the metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Judged: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "docket_jobs_total", Help: "Jobs judged, by final verdict and language."}, []string{"verdict", "language"}),
		JudgeSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "docket_judge_seconds", Help: "Time to judge one job.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 14)}),
		QueueWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "docket_queue_wait_seconds", Help: "Time a job waited in the queue before this delivery.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 16)}),
		InFlight:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "docket_jobs_in_flight", Help: "Jobs being judged."}),
		Redeliveries: prometheus.NewCounter(prometheus.CounterOpts{Name: "docket_redeliveries_total", Help: "Jobs received on a second or later delivery."}),
		SandboxFail:  prometheus.NewCounter(prometheus.CounterOpts{Name: "docket_sandbox_failures_total", Help: "Jobs given back because docket or its dependencies failed."}),
	}
	reg.MustRegister(m.Judged, m.JudgeSeconds, m.QueueWait, m.InFlight, m.Redeliveries, m.SandboxFail)
	return m
}

func (m *Metrics) judged(v, lang string) {
	if m != nil {
		m.Judged.WithLabelValues(v, lang).Inc()
	}
}
func (m *Metrics) judgeTime(d time.Duration) {
	if m != nil {
		m.JudgeSeconds.Observe(d.Seconds())
	}
}
func (m *Metrics) queueWait(d time.Duration) {
	if m != nil {
		m.QueueWait.Observe(d.Seconds())
	}
}
func (m *Metrics) inFlight(d float64) {
	if m != nil {
		m.InFlight.Add(d)
	}
}
func (m *Metrics) redelivered() {
	if m != nil {
		m.Redeliveries.Inc()
	}
}
func (m *Metrics) sandboxFailure() {
	if m != nil {
		m.SandboxFail.Inc()
	}
}
