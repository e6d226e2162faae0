"""Steps 4-7 together: random sequences of every operation against a plain model of the contract.

The clock only moves forward. After every operation the stored rows must equal the model's, and
two invariants must hold: a job's fence never goes down, and a result is only ever stored by
the generation that held the lease at that moment.
"""

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from support import DEFAULT_ROW, call, explain, row, seed

JOBS = ["j1", "j2"]
OWNERS = ["A", "B"]
TTLS = st.sampled_from([1.0, 2.5, 5.0])


class LeaseMachine(RuleBasedStateMachine):
    """The real module beside a dict of expected rows."""

    lease = None  # set by the check before it runs the machine
    new_db = None

    @initialize()
    def fresh_database(self):
        self.db = LeaseMachine.new_db()
        self.now = 0.0
        self.model = {}
        self.history = []  # the calls so far, for the failure message
        for job in JOBS:
            seed(self.db, job)
            self.model[job] = {"id": job, **DEFAULT_ROW}
        self.highest_fence = {job: 0 for job in JOBS}

    def current(self, job, owner, fence):
        stored = self.model[job]
        return stored["owner"] == owner and stored["fence"] == fence and not stored["done"] and stored["until"] > self.now

    def run(self, name, *args):
        got, called = call(self.lease, name, *args)
        self.history.append(f"{called} -> {got!r}")
        return got

    def recent_calls(self):
        return "\n  " + "\n  ".join(self.history[-8:])

    def expect(self, got, want):
        assert got == want, explain(
            self.recent_calls(), got,
            en=f"{want!r} for the last call, by the contract", ja=f"最後の呼び出しは契約により {want!r}",
        )

    @rule(dt=st.sampled_from([0.0, 0.5, 1.0, 2.5, 5.0]))
    def advance_clock(self, dt):
        self.now += dt

    @rule(job=st.sampled_from(JOBS), owner=st.sampled_from(OWNERS), ttl=TTLS)
    def claim(self, job, owner, ttl):
        stored = self.model[job]
        got = self.run("claim", self.db, job, owner, self.now, ttl)
        if stored["done"] or stored["until"] > self.now:
            self.expect(got, None)
        else:
            stored.update(owner=owner, until=self.now + ttl, fence=stored["fence"] + 1)
            self.expect(got, stored["fence"])

    @rule(job=st.sampled_from(JOBS), owner=st.sampled_from(OWNERS), back=st.integers(0, 2), ttl=TTLS)
    def renew(self, job, owner, back, ttl):
        fence = max(self.model[job]["fence"] - back, 0)
        want = self.current(job, owner, fence)
        got = self.run("renew", self.db, job, owner, fence, self.now, ttl)
        if want:
            self.model[job]["until"] = self.now + ttl
        self.expect(got, want)

    @rule(job=st.sampled_from(JOBS), owner=st.sampled_from(OWNERS), back=st.integers(0, 2))
    def complete(self, job, owner, back):
        fence = max(self.model[job]["fence"] - back, 0)
        want = self.current(job, owner, fence)
        result = f"{owner}#{fence}@{self.now}"
        got = self.run("complete", self.db, job, owner, fence, self.now, result)
        if want:
            self.model[job].update(result=result, done=1)
        self.expect(got, want)

    @rule(job=st.sampled_from(JOBS), owner=st.sampled_from(OWNERS), back=st.integers(0, 2))
    def release(self, job, owner, back):
        stored = self.model[job]
        fence = max(stored["fence"] - back, 0)
        want = stored["owner"] == owner and stored["fence"] == fence and not stored["done"]
        got = self.run("release", self.db, job, owner, fence)
        if want:
            stored.update(owner=None, until=0.0)
        self.expect(got, want)

    @invariant()
    def stored_rows_match_the_model(self):
        for job in JOBS:
            stored = row(self.db, job)
            assert stored == self.model[job], explain(
                self.recent_calls(), stored,
                en=f"row {self.model[job]} after these calls", ja=f"これらの呼び出しのあと、行は {self.model[job]}",
            )

    @invariant()
    def stored_fences_never_go_down(self):
        for job in JOBS:
            fence = row(self.db, job)["fence"]
            assert fence >= self.highest_fence[job], explain(
                self.recent_calls(), f"fence {fence}",
                en=f"a fence of at least {self.highest_fence[job]}: fences only grow", ja=f"fence は {self.highest_fence[job]} 以上 (fence は増える一方)",
            )
            self.highest_fence[job] = fence

    @invariant()
    def a_stored_result_comes_from_the_generation_that_holds_the_job(self):
        for job in JOBS:
            stored = row(self.db, job)
            if stored["done"]:
                writer = f"{stored['owner']}#{stored['fence']}@"
                assert str(stored["result"]).startswith(writer), explain(
                    self.recent_calls(), stored,
                    en=f"a result written by {writer[:-1]} (owner#fence), the generation stored with it",
                    ja=f"result は {writer[:-1]} (owner#fence) が書いたもの",
                )


@pytest.mark.clause("C4.5", "C5.2", "C5.4", "C6.1", "C6.3", "C6.4", "C7.1", "C7.2")
def test_random_sequences_of_operations_follow_the_contract(lease, new_db):
    LeaseMachine.lease = lease
    LeaseMachine.new_db = staticmethod(new_db)
    run_state_machine_as_test(LeaseMachine, settings=settings(max_examples=30, stateful_step_count=25))
