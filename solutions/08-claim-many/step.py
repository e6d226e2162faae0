from concurrent.futures import ThreadPoolExecutor


def claim_many(path, job_id, owners, now, ttl):
    """Let every owner claim the job at the same time; results in input order."""
    with ThreadPoolExecutor(max_workers=len(owners) or 1) as pool:
        return list(pool.map(lambda owner: claim(path, job_id, owner, now, ttl), owners))
