"""The report's mutants through the checker's kill matrix, beside mutmut's run.

Each mutant runs against its own step's checks. One that mutmut saw killed while none of those
checks fails is killed only by a later step's check (claim_many calls claim): it runs again with
the later steps, so that its killers are named too. Where both are known before the checker
starts (mutmut keeps the verdicts of functions it does not re-test; the matrix cache has the
first run), that second run joins the first instead of waiting for mutmut.
"""

from lab.grading.kill_matrix import killed_by
from lab.mutation import matrix
from lab.mutation.model import DETECTED


def run(mutants, mutmut, source, steps, stage_dir, progress):
    """Each mutant's results by id (those of its run with the later steps, where it had one);
    the status of each of mutmut's mutants set to mutmut's verdict on the way.

    mutmut: the build's MutmutRun, whose verdicts are read once the first runs have ended.
    """
    jobs = Jobs(mutmut.variants, source, steps)
    first = jobs.first(mutants)
    cached = matrix.peek(first)
    early = [jobs.with_later_steps(m) for m in mutants if m.id not in mutmut.testing and jobs.needs_later_steps(m, cached.get(m.id), mutmut.known.get(m.id))]
    progress(f"kill matrix: {len(first)} mutants through the checker ...")
    results, ran = matrix.kill_matrix(first + early, stage_dir)
    verdicts = mutmut.verdicts()
    progress("mutmut: done")
    for m in mutants:
        if m.origin == "mutmut" and not m.equivalent:
            m.status = verdicts.get(m.id, "not checked")
    again = {m.id: jobs.with_later_steps(m) for m in mutants if jobs.needs_later_steps(m, results.get(m.id), m.status)}
    late = [job for job in again.values() if job[0] not in results]
    if late:
        more, ran_late = matrix.kill_matrix(late, stage_dir)
        results.update(more)
        ran += ran_late
    progress(f"kill matrix: {ran} mutants ran, {len(first) + len(early) + len(late) - ran} from the cache")
    # the later-steps results replace the first ones; early runs no longer needed are dropped
    later_ids = {job[0] for job in early + late}
    kept = {target: found for target, found in results.items() if target not in later_ids}
    kept.update({m_id: results[job[0]] for m_id, job in again.items()})
    return kept


class Jobs:
    """The kill matrix's jobs for the mutants of one source: (target id, steps, module text or
    None, pre-built mutant id or None), as lab.mutation.matrix takes them."""

    def __init__(self, variants, source, steps):
        self.by_id, self.source, self.steps = {v.name: v for v in variants}, source, steps

    def first(self, mutants):
        """Each mutant against its own step's checks; mutmut's equivalents and its mutants of
        steps whose checks do not pass are not run."""
        jobs = []
        for m in mutants:
            if m.origin == "mutmut" and m.step in self.steps and not m.equivalent:
                jobs.append((m.id, (m.step,), self.by_id[m.id].module(self.source), None))
            elif m.origin == "pre-built":
                jobs.append((m.id, (m.step,), None, m.id))
        return jobs

    def with_later_steps(self, m):
        """Its run with the later steps too; its own id keeps its cache entry beside the first."""
        return (f"{m.id} with later steps", tuple(s for s in self.steps if s >= m.step), self.by_id[m.id].module(self.source), None)

    def needs_later_steps(self, m, own, status):
        """mutmut saw it killed (status), only by a later step's check (its own results, own,
        name no killer): it runs again with the later steps, so that its killers are named too."""
        return (
            m.origin == "mutmut" and not m.equivalent and own is not None and status in DETECTED
            and not killed_by(own) and any(s > m.step for s in self.steps)
        )
