"""Python client kit for labeld, the label-printer daemon.

    from labeld_client import Client
    with Client() as labeld:
        job = labeld.submit("sim:zebra", document=b"^XA^FDHello^FS^XZ")
        print(labeld.wait_job(job.id, timeout=30).state)

The wire protocol is docs/protocol.md in labeld's repository; the semantics shared with
the Swift kit (connection, errors, alert streams, job progress) are in docs/clients.md.
"""

from .aio import AsyncAlertStream, AsyncClient
from .alerts import AlertSync, Emit, ResumeFileError
from .client import AlertStream, Client
from .errors import (
    ENDS_STREAMS,
    CertificateRejected,
    ClientError,
    ConnectionLost,
    InternalError,
    InvalidParams,
    InvalidRequest,
    JobNotFound,
    LabeldError,
    MethodNotFound,
    NotFound,
    NotPermitted,
    ParseError,
    PrinterNotAccepting,
    PrinterNotFound,
    ProtocolViolation,
    SaveFailed,
    Timeout,
    TooManyJobs,
    TransportUnsupported,
    Unauthorized,
    Unreachable,
    Unsupported,
)
from ._wire import default_socket_path
from .models import (
    REASONS,
    TERMINAL_JOB_STATES,
    Alert,
    Gap,
    HelloResult,
    Job,
    JobError,
    JobOrigin,
    Media,
    Page,
    Printer,
    Product,
    ProductInput,
    RenderResult,
    SaveResult,
)

__version__ = "0.1.0"

__all__ = [
    "Client",
    "AsyncClient",
    "AlertStream",
    "AsyncAlertStream",
    "AlertSync",
    "Emit",
    "default_socket_path",
    "ClientError",
    "Unreachable",
    "ConnectionLost",
    "Timeout",
    "ProtocolViolation",
    "Unauthorized",
    "CertificateRejected",
    "TransportUnsupported",
    "ENDS_STREAMS",
    "ResumeFileError",
    "LabeldError",
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "PrinterNotFound",
    "PrinterNotAccepting",
    "JobNotFound",
    "SaveFailed",
    "NotPermitted",
    "NotFound",
    "Unsupported",
    "TooManyJobs",
    "REASONS",
    "TERMINAL_JOB_STATES",
    "Alert",
    "Gap",
    "HelloResult",
    "Job",
    "JobError",
    "JobOrigin",
    "Media",
    "Page",
    "Printer",
    "Product",
    "ProductInput",
    "RenderResult",
    "SaveResult",
]
