"""Labels written as probabilities (a judge's): each metric's expectation and spread over the
label outcomes — by a recursion over the ranks (`recursion`, `graded`), by linearity
(`linearity`), or by evaluating the outcomes (`probability`) — and several systems over the same
outcomes (`joint`)."""
