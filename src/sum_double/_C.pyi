__version__: str
built_with_torch: str
stable_abi_target: str

def torch_reason_in_errors() -> bool: ...

cpu_only: bool
cuda_version: str | None
cuda_archs: tuple[str, ...]

def cuda_driver_version() -> str | None: ...
def _driver_problem(built_with: int, driver: int) -> str: ...
