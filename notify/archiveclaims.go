package notify

import (
	"context"
	"time"

	"github.com/firewatch/firewatch/archive"
)

// The moments of the team's sinks are claimed in firewatch's archive
// (archive/moments.go) when there is one: of the processes that share it,
// the one that claims a moment sends it.

// ArchiveClaims is the archive's claims for one service and team, as this
// process's holder: a Claimer.
type ArchiveClaims struct {
	c             archive.Claimer
	service, team string
	holder        archive.Holder
	own           archive.Store // opened for the claims alone: closed with them
}

// NewArchiveClaims claims in st for the team of key on service, as a
// holder labelled label; nil when st claims nothing. With own, st was
// opened for the claims alone and Close closes it.
func NewArchiveClaims(st archive.Store, service, key, label string, own bool) *ArchiveClaims {
	c, ok := st.(archive.Claimer)
	if st == nil || !ok {
		return nil
	}
	m := &ArchiveClaims{c: c, service: service, team: archive.TeamOf(key), holder: archive.NewHolder(label)}
	if own {
		m.own = st
	}
	return m
}

func (m *ArchiveClaims) key(job, moment, sink string) archive.MomentKey {
	return archive.MomentKey{Service: m.service, Team: m.team, Run: job, Moment: moment, Sink: sink}
}

func (m *ArchiveClaims) Claim(ctx context.Context, job, moment, sink string, ttl time.Duration) (Claimed, error) {
	c, err := m.c.ClaimMoment(ctx, m.key(job, moment, sink), m.holder, ttl)
	return Claimed{Got: c.Got, Sent: c.Sent, Left: c.Left, By: c.By}, err
}

func (m *ArchiveClaims) Sent(ctx context.Context, job, moment, sink string, failed bool) error {
	return m.c.MomentSent(ctx, m.key(job, moment, sink), m.holder, failed)
}

func (m *ArchiveClaims) Release(ctx context.Context, job, moment, sink string) error {
	return m.c.ReleaseMoment(ctx, m.key(job, moment, sink), m.holder)
}

// Close closes the store opened for the claims.
func (m *ArchiveClaims) Close() {
	if m != nil && m.own != nil {
		m.own.Close()
		m.own = nil
	}
}
