# The wheel's software bill of materials (PEP 770): a CycloneDX 1.6 document in the wheel's
# .dist-info/sboms/ naming what the binaries carry from elsewhere, above all NVIDIA's CUDA runtime,
# linked statically under NVIDIA's own license. `python -m sum_double info` reads it back.
# Included after CudaLanguage.cmake and find_package(pybind11) (it reads SUM_DOUBLE_WITH_CUDA,
# SUM_DOUBLE_CUDA_RUNTIME_VERSION and pybind11_VERSION).
#
# Reproducible: no timestamp, no serialNumber (a random UUID), no path, so two builds of a commit
# give the same bytes. The file name is ours alone: auditwheel repair may add its own SBOM beside.
block(SCOPE_FOR VARIABLES)
  set(cudart "")
  if(SUM_DOUBLE_WITH_CUDA)
    # NVIDIA's EULA has no SPDX identifier: CycloneDX names such a license (name + url).
    string(CONFIGURE [=[
    {
      "type": "library",
      "bom-ref": "cudart_static",
      "supplier": {"name": "NVIDIA Corporation"},
      "name": "cudart_static",
      "version": "@SUM_DOUBLE_CUDA_RUNTIME_VERSION@",
      "description": "Linked statically into the op library, sum_double/lib/libsum_double_ops.so",
      "licenses": [
        {
          "license": {
            "name": "NVIDIA CUDA Toolkit End User License Agreement",
            "url": "https://docs.nvidia.com/cuda/eula/index.html"
          }
        }
      ]
    },]=] cudart @ONLY)
    string(PREPEND cudart "\n")  # a bracket argument drops the newline that opens it
  endif()
  set(purl "pkg:pypi/sum-double@${PROJECT_VERSION}")
  # One substitution pass: the values (versions, the CUDA component) are not scanned again.
  set(out "${PROJECT_BINARY_DIR}/sum_double.cdx.json")
  file(CONFIGURE OUTPUT "${out}" @ONLY CONTENT [=[{
  "$schema": "http://cyclonedx.org/schema/bom-1.6.schema.json",
  "bomFormat": "CycloneDX",
  "specVersion": "1.6",
  "version": 1,
  "metadata": {
    "component": {
      "type": "library",
      "bom-ref": "@purl@",
      "name": "sum-double",
      "version": "@PROJECT_VERSION@",
      "purl": "@purl@"
    }
  },
  "components": [@cudart@
    {
      "type": "library",
      "bom-ref": "pybind11",
      "name": "pybind11",
      "version": "@pybind11_VERSION@",
      "description": "Header-only, compiled into the Python module sum_double/_C",
      "licenses": [{"license": {"id": "BSD-3-Clause"}}]
    }
  ]
}
]=])
  # A missing comma or a stray quote would otherwise ship as a file no tool can read.
  file(READ "${out}" bom)
  string(JSON type ERROR_VARIABLE bad TYPE "${bom}")
  if(bad)
    message(FATAL_ERROR "sum_double: ${out} is not valid JSON (${bad})")
  endif()
  # Only scikit-build-core gives a dist-info to install into; a bare CMake build keeps the file.
  if(DEFINED SKBUILD_METADATA_DIR)
    install(FILES "${out}" DESTINATION "${SKBUILD_METADATA_DIR}/sboms")
  endif()
endblock()
