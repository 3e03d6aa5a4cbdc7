"""servesim.dask on a LocalCluster: 2 worker processes sweep 200 points and the table
is byte-identical to the local sweep. ctest skips this file when dask is absent."""
import pytest

import servesim

distributed = pytest.importorskip("dask.distributed")
import servesim.dask  # noqa: E402

QUICK = "scenarios/quickstart.yaml"
# 20 rates x 10 seeds = 200 points of 20 requests each (milliseconds per point).
VARY = {"workload.arrival.rate": "1:20:1", "workload.seed": "1:10:1"}
SETS = {"workload.requests": 20}


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_dask_sweep_equals_the_local_sweep(client, root):
    scenario = str(root / QUICK)  # absolute: the workers need not share our working directory
    local = servesim.sweep(scenario, vary=VARY, set=SETS, jobs=1)
    assert len(local) == 200
    with distributed.get_task_stream(client) as stream:
        remote = servesim.dask.sweep(client, scenario, vary=VARY, set=SETS)
    assert remote.csv == local.csv
    assert remote.json == local.json
    # 4 shard tasks per worker, and both worker processes ran some.
    assert len(stream.data) == 8
    assert len({t["worker"] for t in stream.data}) == 2


def test_dask_plan_equals_local_plans(client, root):
    scenario = str(root / "scenarios/capacity-plan.yaml")
    opts = dict(target_rate=20, gpus=["h100-sxm"], weights=["bf16"], tps=[2], trial_requests=60, jobs=1)
    vary = {"workload.requests": [60, 80]}
    remote = servesim.dask.plan(client, scenario, vary=vary, **opts)
    assert [p for p, _ in remote] == [{"workload.requests": "60"}, {"workload.requests": "80"}]
    for point, r in remote:
        local = servesim.plan(scenario, set=point, **opts)
        assert r.data == local.data


def test_a_yaml_string_scenario_travels_with_the_tasks(client, root):
    text = (root / QUICK).read_text()
    vary = {"workload.arrival.rate": [2, 4, 8]}
    remote = servesim.dask.sweep(client, text, vary=vary, set=SETS, shards=3)
    assert remote.csv == servesim.sweep(text, vary=vary, set=SETS).csv
    assert len(remote) == 3
