"""A deliberately plain, slow FCFS/SJF (+EASY) scheduler used only as a test oracle.

Written from the textbook description (Mu'alem and Feitelson 2001), independently of the compiled
loop: lists instead of heaps and sorted buffers, everything recomputed at every event.
"""


def reference_schedule(jobs, nodes, order="fcfs", easy=True):
    """jobs: list of dicts with submit, run, req, size (run <= req). Returns start times."""
    n = len(jobs)
    start = [None] * n
    waiting = []          # indices in arrival order
    running = []          # indices
    arrived = 0
    arrival = sorted(range(n), key=lambda i: (jobs[i]["submit"], i))

    def end(i):
        return start[i] + jobs[i]["run"]

    def free_nodes():
        return nodes - sum(jobs[i]["size"] for i in running)

    def queue_order():
        if order == "sjf":
            return sorted(waiting, key=lambda i: (jobs[i]["req"], arrival.index(i)))
        return list(waiting)

    while arrived < n or waiting or running:
        times = [end(i) for i in running]
        if arrived < n:
            times.append(jobs[arrival[arrived]]["submit"])
        now = min(times)
        running = [i for i in running if end(i) > now]
        while arrived < n and jobs[arrival[arrived]]["submit"] <= now:
            waiting.append(arrival[arrived])
            arrived += 1
        queue = queue_order()
        # start jobs from the head while the head fits
        while queue and jobs[queue[0]]["size"] <= free_nodes():
            i = queue.pop(0)
            start[i] = now
            running.append(i)
            waiting.remove(i)
        if easy and queue:
            head = queue[0]
            # shadow time: walk running jobs by requested end until the head fits
            free_then = free_nodes()
            shadow = None
            for i in sorted(running, key=lambda r: start[r] + jobs[r]["req"]):
                free_then += jobs[i]["size"]
                if free_then >= jobs[head]["size"]:
                    shadow = start[i] + jobs[i]["req"]
                    break
            # spare at the shadow time: every running job whose requested end is at or before it
            # (not only those walked so far: jobs tied with the last one end then too)
            free_then = free_nodes() + sum(jobs[r]["size"] for r in running
                                           if start[r] + jobs[r]["req"] <= shadow)
            extra = free_then - jobs[head]["size"]
            for i in queue[1:]:
                size = jobs[i]["size"]
                if size > free_nodes():
                    continue
                if now + jobs[i]["req"] <= shadow:
                    pass
                elif size <= extra:
                    extra -= size
                else:
                    continue
                start[i] = now
                running.append(i)
                waiting.remove(i)
    return start
