"""Which job changes ``job_updates`` hands out (pure; shared by both clients)."""

from __future__ import annotations

from dataclasses import dataclass

from .models import Job

__all__ = ["JobProgress"]


@dataclass
class JobProgress:
    """Hands a change out only if (state, printed, updatedAt) differ from the last one
    handed out, never going back (an update older than the last is ignored), and nothing
    after a terminal state."""

    job_id: int
    last: Job | None = None

    @property
    def done(self) -> bool:
        return self.last is not None and self.last.terminal

    def accept(self, job: Job) -> bool:
        if job.id != self.job_id or self.done:
            return False
        last = self.last
        if last is not None:
            if (job.state, job.printed, job.updated_at) == (last.state, last.printed, last.updated_at):
                return False
            if job.updated_at < last.updated_at:
                return False
            if job.updated_at == last.updated_at and job.printed < last.printed:
                return False
        self.last = job
        return True
