"""The MCP server of lesson 10: a weather service with typed tools, structured results and a failure.

python weather.py                  # serve over stdin/stdout
python weather.py --fault hang     # forecast never answers
python weather.py --fault crash    # the process dies during forecast
"""

import os
import sys
from typing import Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

__all__ = ["make_server", "Forecast", "READINGS", "ALERTS"]

READINGS: dict[str, dict[str, Any]] = {
    "Lisbon": {"sky": "sunny", "celsius": 27.0, "rain_chance": 0.05},
    "Oslo": {"sky": "light rain", "celsius": 9.5, "rain_chance": 0.8},
    "Tokyo": {"sky": "cloudy", "celsius": 18.0, "rain_chance": 0.4},
}
ALERTS = {"Lisbon": "Heat warning: up to 38 °C in the afternoon."}


class Forecast(BaseModel):
    city: str
    sky: str
    temperature: float
    unit: Literal["celsius", "fahrenheit"]
    rain_chance: float


def make_server(fault: str | None = None) -> MCPServer:
    """the weather server; fault='hang' or 'crash' breaks its forecast tool on purpose"""
    # log_level: the server logs each failed call; a notebook should not print those
    server = MCPServer("weather", version="1.0.0", log_level="CRITICAL")

    @server.tool()
    async def forecast(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> Forecast:
        """Tomorrow's weather forecast for a city: sky, temperature and chance of rain."""
        if fault == "hang":
            await anyio.sleep(3600)  # async, so a cancelled request really stops it
        if fault == "crash":
            print("weather backend: segmentation fault", file=sys.stderr, flush=True)
            os._exit(3)
        if city not in READINGS:
            raise ToolError(f"no forecast for {city!r}; the cities I know are {', '.join(READINGS)}")
        reading = READINGS[city]
        celsius = reading["celsius"]
        temperature = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32, 1)
        return Forecast(
            city=city,
            sky=reading["sky"],
            temperature=temperature,
            unit=unit,
            rain_chance=reading["rain_chance"],
        )

    @server.tool(structured_output=False)  # plain text content, no structuredContent
    def weather_alerts(city: str) -> str:
        """Official alerts (storms, heat, floods) in force for a city."""
        return ALERTS.get(city, f"No alerts in force for {city}.")

    return server


if __name__ == "__main__":
    fault = sys.argv[sys.argv.index("--fault") + 1] if "--fault" in sys.argv else None
    make_server(fault).run()  # stdio: JSON-RPC messages on stdin and stdout, one per line
