"""Connecting to Dask: a scheduler address (plain or TLS) or a local cluster of N processes."""

import contextlib
import logging


class ConnectError(Exception):
    pass


@contextlib.contextmanager
def connect(opts):
    """Yields a distributed.Client for `opts` (--scheduler/--local and the --tls-* files)."""
    import cloudpickle
    from distributed import Client, LocalCluster
    from distributed.security import Security

    from profkit_fleet import work

    # The workers run work.py's functions without having this package installed.
    cloudpickle.register_pickle_by_value(work)
    # Dask logs every retried task and lost worker at WARNING; the summary says what matters.
    logging.getLogger("distributed").setLevel(logging.ERROR)

    if opts.local:
        if opts.local < 1:
            raise ConnectError("--local needs at least one worker")
        with LocalCluster(n_workers=opts.local, threads_per_worker=1, processes=True,
                          dashboard_address=None) as local, Client(local) as client:
            yield client
        return
    address = opts.scheduler
    security = None
    tls_files = [opts.tls_ca_file, opts.tls_cert, opts.tls_key]
    if address.startswith("tls://") or any(tls_files):
        if not all(tls_files):
            raise ConnectError("a tls:// scheduler needs --tls-ca-file, --tls-cert and --tls-key")
        security = Security(tls_ca_file=opts.tls_ca_file, tls_client_cert=opts.tls_cert,
                            tls_client_key=opts.tls_key, require_encryption=True)
    try:
        client = Client(address, security=security, timeout=30)
    except (OSError, TimeoutError) as e:
        raise ConnectError(f"cannot connect to the scheduler at {address}: {e}") from None
    try:
        yield client
    finally:
        client.close()
