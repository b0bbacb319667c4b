package model

// Bill is what the service bills for a run, by the one rule firewatch
// applies everywhere (cost, report, compare, the runs screen, the
// summary): a run is billed for its credits unless its outcome is failed.
// The service bills a cancelled run for the work done before the cancel and
// a credit-limited one up to its cap; it does not bill a failed run. A run
// whose outcome is not known (it has not finished, or its trace expired
// before anything read it), or is a word the spec does not name, is
// neither: it is counted apart, never guessed.
type Bill struct {
	Known   bool    // the outcome is known, so is the bill
	Billed  bool    // Known and billed
	Credits float64 // the credits billed: 0 unless Billed
}

// BillOf applies the rule to a run's outcome ("" when not known) and its
// credits used.
func BillOf(outcome Outcome, credits float64) Bill {
	switch outcome {
	case OutcomeFailed:
		return Bill{Known: true}
	case OutcomeSucceeded, OutcomeCancelled, OutcomeCreditLimitReached, OutcomeRefused:
		return Bill{Known: true, Billed: true, Credits: credits}
	}
	return Bill{}
}

// BilledCredits is the credits billed, nil when the bill is not known.
func (b Bill) BilledCredits() *float64 {
	if !b.Known {
		return nil
	}
	c := b.Credits
	return &c
}
