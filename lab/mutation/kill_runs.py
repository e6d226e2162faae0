"""The report's mutants through the checker's kill matrix: the one runner of their checks.

Each mutant runs against its own step's checks. A mutmut mutant that none of them kills may be
killed by a later step's check (claim_many calls claim): it runs again with the later steps, so
that its killers are named too, and survives only when none of theirs kills it either.
"""

from lab.grading.kill_matrix import killed_by
from lab.model.results import CheckStatus, MutantStatus
from lab.mutation import matrix
from lab.text.messages import words_of


def run(mutants, variants, source, steps, stage_dir, progress, lang="en"):
    """Each mutant's results by id (those of its run with the later steps, where it had one),
    and its status set from them: killed, survived or timeout. progress gets its lines in lang."""
    words = words_of("mutation", lang)
    jobs = Jobs(variants, source, steps, stage_dir)
    first = jobs.first(mutants)
    progress(words("matrix_start", count=len(first)))
    results = matrix.kill_matrix(first)
    ran = _ran(results)
    again = {m.id: jobs.with_later_steps(m) for m in mutants if jobs.needs_later_steps(m, results.get(m.id))}
    if again:
        later = matrix.kill_matrix(list(again.values()))
        results.update({m_id: later[job.target.id] for m_id, job in again.items()})
        ran |= {m_id for m_id, job in again.items() if job.target.id in _ran(later)}
    # Mutants, not runs: one that ran again with the later steps is still one of the `first`.
    progress(words("matrix_done", ran=len(ran), cached=len(first) - len(ran)))
    for m in mutants:
        if m.id in results:
            m.status = status(results[m.id])
    return results


def _ran(results):
    """The ids whose checks ran, wholly or in part; every result of the others came from the cache."""
    return {target_id for target_id, found in results.items() if any(not r.reused for r in found)}


def status(results):
    """A mutant's status from its checks' results, in mutmut's words."""
    statuses = {r.status for r in results}
    if not statuses:
        return MutantStatus.NOT_CHECKED
    if statuses == {CheckStatus.PASSED}:
        return MutantStatus.SURVIVED
    if statuses - {CheckStatus.PASSED, CheckStatus.TIMEOUT}:
        return MutantStatus.KILLED
    return MutantStatus.TIMEOUT


class Jobs:
    """The kill matrix's jobs (lab.mutation.matrix) for the mutants of one source."""

    def __init__(self, variants, source, steps, stage_dir):
        self.by_id, self.source, self.steps, self.stage_dir = {v.name: v for v in variants}, source, steps, stage_dir

    def first(self, mutants):
        """Each mutant against its own step's checks; mutmut's equivalents, and its mutants that
        no check of the steps that pass can call, are not run."""
        jobs = []
        for m in mutants:
            if m.origin == "mutmut" and m.status == MutantStatus.NOT_CHECKED:
                jobs.append(matrix.mutant_job(m.id, (m.step,), self.by_id[m.id].module(self.source), self.stage_dir))
            elif m.origin == "pre-built":
                jobs.append(matrix.prebuilt_job(m.id, (m.step,)))
        return jobs

    def with_later_steps(self, m):
        """Its run with the later steps too; its own id keeps its cache entry beside the first."""
        steps = tuple(s for s in self.steps if s >= m.step)
        return matrix.mutant_job(
            f"{m.id} with later steps", steps, self.by_id[m.id].module(self.source), self.stage_dir
        )

    def needs_later_steps(self, m, own):
        """A mutmut mutant that its own step's checks (own: their results) do not kill, when
        later steps pass: it runs again with them."""
        return m.origin == "mutmut" and own is not None and not killed_by(own) and any(s > m.step for s in self.steps)
