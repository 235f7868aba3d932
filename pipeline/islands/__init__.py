"""Islands that each run their own loop, and the actors they own: an island's epoch (`epochs`:
generational; `steady`: a steady-state island's asynchronous loop, `[islands] loop = "own"`),
the driver's loop that logs what islands did (`loop`), and on Ray the island runners (`runner`)
that breed, select and drive their own evaluation actors (`actors`), started and fed by the
driver (`on_ray`). The plan and the migration they follow (ids, routes, schedule), shared with the
steady-state islands, are `evolution/islands.py`.

Nothing is imported here; the Ray parts only after `ray_connect.connect()`.
"""
