"""The island model in one place: its plan and migration (`plan`), the driver's loop that logs
what islands did (`loop`), and on Ray the island runners (`runner`) that breed, select and
drive their own evaluation actors (`actors`), started and fed by the driver (`on_ray`).

Nothing is imported here: the steady-state algorithm imports `plan` alone, and the Ray parts
only after `ray_connect.connect()`.
"""
