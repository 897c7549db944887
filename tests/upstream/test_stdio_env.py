from manifold.upstream.stdio import child_environment


def test_child_gets_only_configured_environment() -> None:
    parent = {"PATH": "/bin", "HOME": "/h", "AWS_SECRET_ACCESS_KEY": "s3cr3t", "GITHUB_TOKEN": "t"}
    env = child_environment({"API_KEY": "k"}, ["PATH", "HOME"], parent)
    assert env == {"PATH": "/bin", "HOME": "/h", "API_KEY": "k"}


def test_configured_values_win_over_passthrough() -> None:
    env = child_environment({"PATH": "/custom"}, ["PATH"], {"PATH": "/bin"})
    assert env == {"PATH": "/custom"}
