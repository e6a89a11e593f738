"""Experiments on a Dask cluster: one benchmark trial per machine at a time (docs/cluster.md).

``design`` plans which instance runs which trial, ``address`` turns ``--cluster`` into a Dask
client (or a LocalCluster), ``bundle`` ships built versions to the workers, ``task`` is what a
worker runs, ``dispatch`` hands trials to instances and stores each as it arrives, and
``worker`` is the ``rigorbench worker`` wrapper over ``dask worker``.
"""
