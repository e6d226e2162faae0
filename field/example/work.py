"""The job's own work: replace work() with yours. The worker calls it once per attempt."""


def work(job, keep_alive):
    """Do job in steps and call keep_alive() between them: it renews the lease, and returns False once
    the lease is lost (another worker may hold the job by now), so stop then. Raise to fail this
    attempt. What it returns is the side effect, sent through the fenced store with this fence."""
    message = f"e-mail for {job}"  # a first step of the real work
    if not keep_alive():
        return None
    return message
