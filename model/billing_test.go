package model

import "testing"

func TestBillOf(t *testing.T) {
	for _, tc := range []struct {
		outcome Outcome
		credits float64
		want    Bill
	}{
		{OutcomeSucceeded, 280, Bill{Known: true, Billed: true, Credits: 280}},
		{OutcomeCancelled, 266, Bill{Known: true, Billed: true, Credits: 266}},
		{OutcomeCreditLimitReached, 150, Bill{Known: true, Billed: true, Credits: 150}},
		{OutcomeRefused, 3, Bill{Known: true, Billed: true, Credits: 3}},
		{OutcomeFailed, 95, Bill{Known: true}},
		{"", 46, Bill{}},         // not finished, or never read: unknown
		{"exploded", 12, Bill{}}, // a word the spec does not name: unknown, not guessed
	} {
		if got := BillOf(tc.outcome, tc.credits); got != tc.want {
			t.Errorf("BillOf(%q, %v) = %+v, want %+v", tc.outcome, tc.credits, got, tc.want)
		}
	}
	if (Bill{}).BilledCredits() != nil {
		t.Error("an unknown bill has billed credits")
	}
	if c := BillOf(OutcomeFailed, 9).BilledCredits(); c == nil || *c != 0 {
		t.Errorf("a failed run's billed credits: %v, want 0", c)
	}
}
